// The merge thread of an in-process recording: it pops what the collector
// copied into the spool, orders it (RingMerger) and hands it to the trace
// writer in runs of events, flushing where a pause was drained.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>

#include "recorder/attach_filter.h"
#include "recorder/merge/ring_merger.h"
#include "recorder/runtime_modes/spool_queue.h"
#include "seer/status.h"
#include "seer/trace.h"
#include "store/async_writer.h"

namespace seer::recorder {

struct MergeThreadOptions {
  // Starts at the background priority `idle_nice` (merge_priority.h); the
  // writer threads it starts inherit it.
  bool start_idle = false;
  int idle_nice = -1;
  // Attached to a running process: the events of locks and blocks from before
  // the attach are left out (AttachFilter).
  bool attached = false;
  // Seconds between flushes of the writer (0: only at drain marks and the end).
  double flush_interval_s = 0;
  // The writer encodes on threads of its own (TraceWriterOptions::encode_threads):
  // it takes runs itself. Otherwise an AsyncTraceWriter in front of it does.
  bool writer_takes_runs = false;
};

class MergeThread {
 public:
  // `queue`, `merger` and `writer` outlive the thread.
  MergeThread(SpoolQueue* queue, RingMerger* merger, TraceWriter* writer, const MergeThreadOptions& options)
      : queue_(queue), merger_(merger), writer_(writer), options_(options) {}
  // Fails the queue and waits, when Join was not called.
  ~MergeThread();
  MergeThread(const MergeThread&) = delete;
  MergeThread& operator=(const MergeThread&) = delete;

  void Start();
  // Waits for the thread to end (the queue closed and empty, or failed) and
  // returns why it stopped early, if it did.
  Status Join();

  // After Join: where the trace's tables go from here on, in order with the
  // events (the writer, or the async writer in front of it).
  TraceWriter* out() const { return out_; }
  // After Join: what the attach filter left out.
  const AttachFilter& attach_filter() const { return attach_filter_; }
  // At any time: the events handed to the writer so far.
  uint64_t merged_events() const { return merged_events_.load(std::memory_order_relaxed); }
  // At any time: the last drain mark (SpoolItem::drain_mark) whose events have
  // all been handed on and flushed.
  uint64_t drained_mark() const { return drained_mark_.load(std::memory_order_acquire); }

 private:
  void Run();

  SpoolQueue* const queue_;
  RingMerger* const merger_;
  TraceWriter* const writer_;
  const MergeThreadOptions options_;
  std::thread thread_;
  Status status_;
  std::unique_ptr<store::AsyncTraceWriter> async_;
  TraceWriter* out_ = nullptr;          // writer_, or async_ in front of it
  store::RunAppender* runs_ = nullptr;  // the same object, taking runs
  AttachFilter attach_filter_;
  std::atomic<uint64_t> merged_events_{0};
  std::atomic<uint64_t> drained_mark_{0};
};

}  // namespace seer::recorder
