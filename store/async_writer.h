// A TraceWriter that hands its events to a second thread, which appends them to
// the real writer: producing events (parsing STD text, generating) and encoding
// and compressing them then overlap on two cores. Order is kept exactly: table
// calls (names, threads, metadata) reach the real writer in the same order
// relative to the events as they were made.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "seer/trace.h"
#include "store/run_appender.h"

namespace seer::store {

class AsyncTraceWriter final : public TraceWriter, public RunAppender {
 public:
  // `target` must outlive this object and is used only by the worker thread
  // until Flush() or Close() returns.
  explicit AsyncTraceWriter(TraceWriter* target);
  ~AsyncTraceWriter() override;  // stops the worker; call Close() first to keep the events

  void SetMeta(const std::string& key, const std::string& value) override;
  void AddThread(const ThreadInfo& thread) override;
  void AddModule(const ModuleInfo& module) override;
  void SetName(Namespace ns, uint64_t id, const std::string& name) override;
  void AddLost(const std::string& where, EventKind kind, uint64_t count) override;
  void AddClockSample(uint64_t ns) override;

  // Errors of the real writer come back from a later Append, or from Flush/Close.
  Status Append(const Event& event) override;
  Status AppendRun(const Event* events, size_t n) override;
  // Waits until the worker has written everything, then flushes / closes the target.
  Status Flush() override;
  Status Close() override;
  uint64_t events_written() const override { return appended_; }

 private:
  static constexpr size_t kBatchEvents = 8192;
  static constexpr size_t kMaxQueued = 4;

  struct Batch {
    std::vector<Event> events;
    // Table calls, each to run before events[position].
    std::vector<std::pair<size_t, std::function<void(TraceWriter*)>>> calls;
  };

  void AddCall(std::function<void(TraceWriter*)> call);
  Status Submit();  // queues the current batch
  Status Drain();   // submits and waits until the worker is idle
  void Work();
  Status AppendTo(const Event* events, size_t n);  // to the target, as a run if it takes runs

  TraceWriter* target_;
  RunAppender* run_target_;  // target_ when it takes runs, else nullptr
  Batch current_;
  uint64_t appended_ = 0;

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Batch> queue_;   // full batches, oldest first
  std::vector<Batch> spare_;  // emptied batches, for reuse
  bool busy_ = false;         // the worker holds a batch
  bool stop_ = false;
  Status error_;  // the target's first error
  std::thread worker_;
};

}  // namespace seer::store
