#include "store/async_writer.h"

#include <algorithm>

namespace seer::store {

AsyncTraceWriter::AsyncTraceWriter(TraceWriter* target)
    : target_(target), run_target_(dynamic_cast<RunAppender*>(target)) {
  current_.events.reserve(kBatchEvents);
  worker_ = std::thread([this] { Work(); });
}

AsyncTraceWriter::~AsyncTraceWriter() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  worker_.join();
}

void AsyncTraceWriter::AddCall(std::function<void(TraceWriter*)> call) {
  current_.calls.emplace_back(current_.events.size(), std::move(call));
}

void AsyncTraceWriter::SetMeta(const std::string& key, const std::string& value) {
  AddCall([key, value](TraceWriter* w) { w->SetMeta(key, value); });
}
void AsyncTraceWriter::AddThread(const ThreadInfo& thread) {
  AddCall([thread](TraceWriter* w) { w->AddThread(thread); });
}
void AsyncTraceWriter::AddModule(const ModuleInfo& module) {
  AddCall([module](TraceWriter* w) { w->AddModule(module); });
}
void AsyncTraceWriter::SetName(Namespace ns, uint64_t id, const std::string& name) {
  AddCall([ns, id, name](TraceWriter* w) { w->SetName(ns, id, name); });
}
void AsyncTraceWriter::AddLost(const std::string& where, EventKind kind, uint64_t count) {
  AddCall([where, kind, count](TraceWriter* w) { w->AddLost(where, kind, count); });
}

void AsyncTraceWriter::AddClockSample(uint64_t ns) {
  AddCall([ns](TraceWriter* w) { w->AddClockSample(ns); });
}

Status AsyncTraceWriter::Append(const Event& event) {
  current_.events.push_back(event);
  ++appended_;
  if (current_.events.size() >= kBatchEvents) return Submit();
  return Status::Ok();
}

Status AsyncTraceWriter::AppendRun(const Event* events, size_t n) {
  while (n > 0) {
    const size_t take = std::min(n, kBatchEvents - current_.events.size());
    current_.events.insert(current_.events.end(), events, events + take);
    appended_ += take;
    events += take;
    n -= take;
    if (current_.events.size() >= kBatchEvents) {
      Status s = Submit();
      if (!s.ok()) return s;
    }
  }
  return Status::Ok();
}

Status AsyncTraceWriter::Submit() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return queue_.size() < kMaxQueued || !error_.ok(); });
  if (!error_.ok()) return error_;
  queue_.push_back(std::move(current_));
  if (spare_.empty()) {
    current_ = Batch();
    current_.events.reserve(kBatchEvents);
  } else {
    current_ = std::move(spare_.back());
    spare_.pop_back();
  }
  lock.unlock();
  cv_.notify_all();
  return Status::Ok();
}

Status AsyncTraceWriter::Drain() {
  if (!current_.events.empty() || !current_.calls.empty()) {
    Status s = Submit();
    if (!s.ok()) return s;
  }
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return (queue_.empty() && !busy_) || !error_.ok(); });
  return error_;
}

Status AsyncTraceWriter::Flush() {
  Status s = Drain();
  if (!s.ok()) return s;
  return target_->Flush();  // the worker is idle: this thread may use the target
}

Status AsyncTraceWriter::Close() {
  Status s = Drain();
  if (!s.ok()) return s;
  return target_->Close();
}

Status AsyncTraceWriter::AppendTo(const Event* events, size_t n) {
  if (run_target_ != nullptr) return run_target_->AppendRun(events, n);
  for (size_t i = 0; i < n; ++i) {
    Status s = target_->Append(events[i]);
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

void AsyncTraceWriter::Work() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping
    Batch batch = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    const bool failed = !error_.ok();
    lock.unlock();
    cv_.notify_all();

    Status s;
    if (!failed) {
      // The events between two table calls go to the target in one run.
      size_t call = 0, i = 0;
      const size_t n = batch.events.size();
      while (s.ok() && i < n) {
        while (call < batch.calls.size() && batch.calls[call].first <= i) batch.calls[call++].second(target_);
        const size_t end = call < batch.calls.size() ? std::min(n, batch.calls[call].first) : n;
        s = AppendTo(batch.events.data() + i, end - i);
        i = end;
      }
      while (s.ok() && call < batch.calls.size()) batch.calls[call++].second(target_);
    }
    batch.events.clear();
    batch.calls.clear();

    lock.lock();
    if (!s.ok() && error_.ok()) error_ = s;
    spare_.push_back(std::move(batch));
    busy_ = false;
    cv_.notify_all();
  }
}

}  // namespace seer::store
