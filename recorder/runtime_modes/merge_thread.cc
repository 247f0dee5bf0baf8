#include "recorder/runtime_modes/merge_thread.h"

#include <chrono>
#include <utility>

#include "recorder/merge/merge_priority.h"

namespace seer::recorder {

MergeThread::~MergeThread() {
  if (thread_.joinable()) {
    queue_->Fail();
    thread_.join();
  }
}

void MergeThread::Start() {
  thread_ = std::thread([this] { Run(); });
}

Status MergeThread::Join() {
  if (thread_.joinable()) thread_.join();
  return status_;
}

void MergeThread::Run() {
  // Before the writer threads start, so that they inherit the priority.
  if (options_.start_idle) SetThreadPriority(0, true, options_.idle_nice);
  runs_ = options_.writer_takes_runs ? dynamic_cast<store::RunAppender*>(writer_) : nullptr;
  if (runs_ != nullptr) {
    out_ = writer_;
  } else {
    async_ = std::make_unique<store::AsyncTraceWriter>(writer_);
    out_ = async_.get();
    runs_ = async_.get();
  }
  uint64_t merged = 0;
  // Events go to the writer in runs: one hand-off per run, not per event.
  // Attached to a running process, the events of locks and blocks from before
  // the attach are left out, and the runs are cut around them.
  auto sink = [&](const Event* events, size_t n, const std::shared_ptr<const store::RepeatedRun>& repeat) {
    if (!options_.attached) {
      merged += n;
      return repeat != nullptr ? runs_->AppendRepeat(repeat) : runs_->AppendRun(events, n);
    }
    // Filtered, a repeat may lack events its first run had: appended as any run.
    size_t kept_from = 0;
    for (size_t i = 0; i <= n; ++i) {
      if (i < n && attach_filter_.Keep(events[i])) continue;
      if (i > kept_from) {
        merged += i - kept_from;
        Status s = runs_->AppendRun(events + kept_from, i - kept_from);
        if (!s.ok()) return s;
      }
      kept_from = i + 1;
    }
    return Status::Ok();
  };
  SpoolItem item;
  auto last_flush = std::chrono::steady_clock::now();
  while (queue_->Pop(&item)) {
    for (const ModuleInfo& m : item.modules) out_->AddModule(m);
    for (const FutexEvent& f : item.futex) merger_->AddExternal(f.ring, f.word, f.number, f.event);
    Status st = merger_->AddRuns(&item.batch, sink);
    // Everything merged so far came from records copied by then.
    if (st.ok() && item.copied_ns != 0) out_->AddClockSample(item.copied_ns);
    merged_events_.store(merged, std::memory_order_relaxed);  // once a batch: the recording's counters read it
    if (st.ok() && item.drain_mark != 0) {
      // Everything recorded before the pause is merged: hand it all to the
      // writer before saying so.
      st = out_->Flush();
      last_flush = std::chrono::steady_clock::now();
      if (st.ok()) drained_mark_.store(item.drain_mark, std::memory_order_release);
    }
    if (st.ok() && options_.flush_interval_s > 0 &&
        std::chrono::steady_clock::now() - last_flush >= std::chrono::duration<double>(options_.flush_interval_s)) {
      st = out_->Flush();
      last_flush = std::chrono::steady_clock::now();
    }
    if (!st.ok()) {
      status_ = st;
      queue_->Fail();
      return;
    }
  }
}

}  // namespace seer::recorder
