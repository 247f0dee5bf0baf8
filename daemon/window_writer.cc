#include "daemon/window_writer.h"

#include <sys/statvfs.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "daemon/clock.h"
#include "recorder/trace_metadata.h"

namespace seer::daemon {

namespace {

// Free bytes for an unprivileged writer on the file system holding `dir`.
bool FreeBytes(const std::string& dir, uint64_t* free) {
  struct statvfs vfs;
  if (statvfs(dir.c_str(), &vfs) != 0) return false;
  *free = static_cast<uint64_t>(vfs.f_bavail) * vfs.f_frsize;
  return true;
}

}  // namespace

WindowedTraceWriter::WindowedTraceWriter(std::string dir, std::string label, const WindowSchedule& schedule,
                                         const TraceWriterOptions& options, ClosedCallback on_closed,
                                         std::function<double()> now)
    : dir_(std::move(dir)),
      label_(std::move(label)),
      schedule_(schedule),
      options_(options),
      on_closed_(std::move(on_closed)),
      now_(std::move(now)),
      origin_(now_()) {
  Tick();
}

WindowedTraceWriter::~WindowedTraceWriter() {
  std::lock_guard<std::mutex> lock(mu_);
  if (current_ != nullptr) CloseLocked(now_(), "");
}

bool WindowedTraceWriter::OnAt(double t) const {
  if (schedule_.duty_period_s <= 0) return true;
  return std::fmod(t - origin_, schedule_.duty_period_s) < schedule_.duty_on_s;
}

double WindowedTraceWriter::OnPeriodEnd(double t) const {
  if (schedule_.duty_period_s <= 0) return INFINITY;
  const double start = t - std::fmod(t - origin_, schedule_.duty_period_s);
  return start + schedule_.duty_on_s;
}

double WindowedTraceWriter::DrainLimit() const {
  // The off period: the next window cannot open before it ends anyway.
  return schedule_.duty_period_s - schedule_.duty_on_s;
}

void WindowedTraceWriter::Tick() {
  std::lock_guard<std::mutex> lock(mu_);
  if (closed_) return;
  const double t = now_();
  if (current_ != nullptr && t >= deadline_) {
    if (pausable_ && deadline_ends_period_ && t < deadline_ + DrainLimit())
      draining_ = true;
    else
      CloseLocked(t, "");
  }
  if (current_ == nullptr && OnAt(t)) OpenLocked(t);
}

void WindowedTraceWriter::set_pausable(bool pausable) {
  std::lock_guard<std::mutex> lock(mu_);
  pausable_ = pausable;
}

bool WindowedTraceWriter::WantsEvents() const {
  std::lock_guard<std::mutex> lock(mu_);
  return current_ != nullptr && !draining_;
}

bool WindowedTraceWriter::draining() const {
  std::lock_guard<std::mutex> lock(mu_);
  return draining_;
}

void WindowedTraceWriter::EndDrain() {
  std::lock_guard<std::mutex> lock(mu_);
  if (draining_ && current_ != nullptr) CloseLocked(now_(), "");
}

void WindowedTraceWriter::OpenLocked(double t) {
  uint64_t free = 0;
  if (schedule_.min_free_bytes > 0 && FreeBytes(dir_, &free) && free < schedule_.min_free_bytes) {
    if (!stats_.paused_disk)
      fprintf(stderr, "seer daemon: %s: %llu bytes free, less than the %llu kept free: recording paused\n",
              dir_.c_str(), static_cast<unsigned long long>(free),
              static_cast<unsigned long long>(schedule_.min_free_bytes));
    stats_.paused_disk = true;
    return;
  }
  if (stats_.paused_disk) fprintf(stderr, "seer daemon: %s: space again: recording resumes\n", dir_.c_str());
  stats_.paused_disk = false;
  char name[96];
  snprintf(name, sizeof name, "/window-%013lld-%s.seer", static_cast<long long>(t * 1000), label_.c_str());
  window_ = WindowFile();
  window_.path = dir_ + name;
  window_.start_unix = t;
  Status st = TraceWriter::Create(window_.path, options_, &current_);
  if (!st.ok()) {
    fprintf(stderr, "seer daemon: cannot open a window: %s\n", st.ToString().c_str());
    current_.reset();
    window_.error = st.ToString();
    window_.end_unix = t;
    stats_.windows_failed++;
    if (on_closed_) on_closed_(window_);
    return;
  }
  filter_ = std::make_unique<recorder::AttachFilter>();
  window_clock_ns_ = last_clock_ns_;
  const double period_end = OnPeriodEnd(t);
  deadline_ = std::min(t + schedule_.window_s, period_end);
  deadline_ends_period_ = period_end <= t + schedule_.window_s;
  ReplayTables();
  current_->SetMeta(meta::kStartTime, recorder::IsoTime(t));
  stats_.recording = true;
}

void WindowedTraceWriter::ReplayTables() {
  for (const auto& [k, v] : meta_) current_->SetMeta(k, v);
  current_->SetMeta("daemon.window_start_unix", std::to_string(window_.start_unix));
  for (const auto& [tid, info] : threads_) current_->AddThread(info);
  for (const ModuleInfo& m : modules_) current_->AddModule(m);
  for (const auto& [key, name] : names_) current_->SetName(key.first, key.second, name);
}

void WindowedTraceWriter::CloseLocked(double t, const std::string& error) {
  std::string why = error;
  current_->SetMeta(meta::kEndTime, recorder::IsoTime(t));
  if (why.empty()) {
    Status st = current_->Close();
    if (!st.ok()) why = st.ToString();
  }
  stats_.unmatched_releases += filter_->unmatched_releases();
  window_.events = current_->events_written();
  current_.reset();
  filter_.reset();
  window_.end_unix = t;
  window_.complete = why.empty();
  window_.error = why;
  stats_.recording = false;
  draining_ = false;
  if (window_.complete) {
    stats_.windows_written++;
  } else {
    stats_.windows_failed++;
    fprintf(stderr, "seer daemon: window %s failed: %s\n", window_.path.c_str(), why.c_str());
  }
  if (on_closed_) on_closed_(window_);
}

void WindowedTraceWriter::SetMeta(const std::string& key, const std::string& value) {
  std::lock_guard<std::mutex> lock(mu_);
  meta_[key] = value;
  if (current_ != nullptr) current_->SetMeta(key, value);
}

void WindowedTraceWriter::AddThread(const ThreadInfo& thread) {
  std::lock_guard<std::mutex> lock(mu_);
  threads_[thread.tid] = thread;
  if (current_ != nullptr) current_->AddThread(thread);
}

void WindowedTraceWriter::AddModule(const ModuleInfo& module) {
  std::lock_guard<std::mutex> lock(mu_);
  modules_.push_back(module);
  if (current_ != nullptr) current_->AddModule(module);
}

void WindowedTraceWriter::SetName(Namespace ns, uint64_t id, const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  names_[{ns, id}] = name;
  if (current_ != nullptr) current_->SetName(ns, id, name);
}

void WindowedTraceWriter::AddLost(const std::string& where, EventKind kind, uint64_t count) {
  std::lock_guard<std::mutex> lock(mu_);
  if (current_ != nullptr) current_->AddLost(where, kind, count);
}

void WindowedTraceWriter::AddClockSample(uint64_t ns) {
  std::lock_guard<std::mutex> lock(mu_);
  last_clock_ns_ = std::max(last_clock_ns_, ns);
  if (current_ != nullptr) current_->AddClockSample(last_clock_ns_ - window_clock_ns_);
}

Status WindowedTraceWriter::Append(const Event& event) {
  std::lock_guard<std::mutex> lock(mu_);
  appended_++;
  if (current_ == nullptr) {
    stats_.events_skipped++;
    return Status::Ok();
  }
  if (!filter_->Keep(event)) return Status::Ok();
  Status st = current_->Append(event);
  if (!st.ok()) {
    // A full disk (or any write error) ends this window, not the recording:
    // what was committed stays readable, and OpenLocked checks the space again
    // at the next Tick.
    CloseLocked(now_(), st.ToString());
    stats_.paused_disk = true;
  }
  return Status::Ok();
}

Status WindowedTraceWriter::Flush() {
  std::lock_guard<std::mutex> lock(mu_);
  return current_ != nullptr ? current_->Flush() : Status::Ok();
}

Status WindowedTraceWriter::Close() {
  std::lock_guard<std::mutex> lock(mu_);
  if (current_ != nullptr) CloseLocked(now_(), "");
  closed_ = true;
  return Status::Ok();
}

uint64_t WindowedTraceWriter::events_written() const {
  std::lock_guard<std::mutex> lock(mu_);
  return appended_;
}

WindowedTraceWriter::Stats WindowedTraceWriter::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

}  // namespace seer::daemon
