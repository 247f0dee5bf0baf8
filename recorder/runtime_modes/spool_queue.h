// The spool: the queue of ring batches from the collector (the recording
// thread) to the merger thread, with the bytes it holds, its peak and the age
// of its oldest batch (what the recording's pacing decides by), and its
// default bound.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <vector>

#include "recorder/ebpf/futex_events.h"
#include "recorder/merge/ring_collector.h"
#include "seer/trace.h"

namespace seer::recorder {

// Batches from the collector (the recording thread) to the merger thread.
struct SpoolItem {
  RingBatch batch;
  uint64_t copied_ns = 0;  // when the copy ended, from the recording's start: the batch's records are older
  std::vector<ModuleInfo> modules;
  std::vector<FutexEvent> futex;  // taken after the batch was copied: placed before it is merged
  // Non-zero: the collector's first copy a grace period after pause number
  // `drain_mark` (SetPaused): once merged, everything recorded before that
  // pause has been handed on.
  uint64_t drain_mark = 0;
};

class SpoolQueue {
 public:
  void Push(SpoolItem item) {
    std::lock_guard<std::mutex> lock(mu_);
    bytes_ += item.batch.bytes();
    peak_ = std::max(peak_, bytes_);
    items_.push_back(std::move(item));
    cv_.notify_one();
  }
  // False once closed and empty, or failed.
  bool Pop(SpoolItem* out) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return !items_.empty() || closed_ || failed_; });
    if (failed_ || items_.empty()) return false;
    *out = std::move(items_.front());
    items_.pop_front();
    bytes_ -= out->batch.bytes();
    return true;
  }
  void Close() {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
    cv_.notify_all();
  }
  void Fail() {
    std::lock_guard<std::mutex> lock(mu_);
    failed_ = true;
    cv_.notify_all();
  }
  uint64_t bytes() {
    std::lock_guard<std::mutex> lock(mu_);
    return bytes_;
  }
  bool failed() {
    std::lock_guard<std::mutex> lock(mu_);
    return failed_;
  }
  uint64_t peak() {
    std::lock_guard<std::mutex> lock(mu_);
    return peak_;
  }
  // When the oldest batch waiting to be merged was copied (SpoolItem::copied_ns); 0: none waits.
  uint64_t oldest_copied_ns() {
    std::lock_guard<std::mutex> lock(mu_);
    return items_.empty() ? 0 : items_.front().copied_ns;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<SpoolItem> items_;
  uint64_t bytes_ = 0;
  uint64_t peak_ = 0;
  bool closed_ = false;
  bool failed_ = false;
};

}  // namespace seer::recorder
