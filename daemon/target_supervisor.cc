#include "daemon/target_supervisor.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "daemon/clock.h"
#include "recorder/runtime_modes/watch_options.h"

namespace seer::daemon {

namespace {

std::string Basename(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

void AddStats(WindowedTraceWriter::Stats* total, const WindowedTraceWriter::Stats& s) {
  total->windows_written += s.windows_written;
  total->windows_failed += s.windows_failed;
  total->events_skipped += s.events_skipped;
  total->unmatched_releases += s.unmatched_releases;
}

}  // namespace

TargetSupervisor::TargetSupervisor(TargetConfig target, int index, SupervisorContext context)
    : target_(std::move(target)), label_("t" + std::to_string(index)), context_(std::move(context)) {
  status_.target = target_.Describe();
  thread_ = std::thread([this] { Run(); });
}

TargetSupervisor::~TargetSupervisor() {
  Stop();
  thread_.join();
}

void TargetSupervisor::Stop() {
  stop_.store(true);
  if (recorder::Recording* r = recording_.load()) r->Stop();
}

TargetStatus TargetSupervisor::status() const {
  std::lock_guard<std::mutex> lock(mu_);
  TargetStatus s = status_;
  WindowedTraceWriter::Stats total = finished_;
  if (writer_ != nullptr) {
    const WindowedTraceWriter::Stats live = writer_->stats();
    AddStats(&total, live);
    s.paused_disk = live.paused_disk;
  }
  s.windows_written = total.windows_written;
  s.windows_failed = total.windows_failed;
  s.events_skipped = total.events_skipped;
  return s;
}

pid_t TargetSupervisor::FindProcessByName(const std::string& name) {
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return 0;
  pid_t best = 0;
  unsigned long long best_start = ~0ull;
  const pid_t self = getpid();
  while (dirent* e = readdir(proc)) {
    char* end = nullptr;
    const long pid = strtol(e->d_name, &end, 10);
    if (*end != '\0' || pid <= 0 || pid == self) continue;
    const std::string base = "/proc/" + std::string(e->d_name);
    char exe[4096];
    const ssize_t n = readlink((base + "/exe").c_str(), exe, sizeof exe - 1);
    std::string exe_name = n > 0 ? Basename(std::string(exe, n)) : "";
    if (exe_name.size() > 10 && exe_name.compare(exe_name.size() - 10, 10, " (deleted)") == 0)
      exe_name.resize(exe_name.size() - 10);
    std::string comm;
    std::ifstream(base + "/comm") >> comm;
    if (exe_name != name && comm != name) continue;
    // The oldest process of that name: the service, not a short-lived helper it forked.
    std::ifstream stat(base + "/stat");
    std::string line;
    std::getline(stat, line);
    const size_t paren = line.rfind(')');
    if (paren == std::string::npos) continue;
    std::istringstream rest(line.substr(paren + 2));
    std::string field;
    unsigned long long start = 0;
    for (int i = 3; i <= 22 && rest >> field; ++i)
      if (i == 22) start = std::stoull(field);
    if (start < best_start) {
      best_start = start;
      best = static_cast<pid_t>(pid);
    }
  }
  closedir(proc);
  return best;
}

bool TargetSupervisor::RecordOnce(pid_t pid) {
  recorder::RecordOptions options;
  std::string why_not_inject;
  if (pid > 0) {
    options.pid = pid;
    options.mode = recorder::AutoRecordMode({}, pid, &why_not_inject);
    if (options.mode == recorder::RecordMode::kEbpf)
      options.ebpf.runtime = recorder::CarriesRuntime("/proc/" + std::to_string(pid) + "/exe");
  } else {
    options.command = target_.command;
    options.mode = recorder::AutoRecordMode(options.command, 0);
  }
  // Events reach the windowed writer at least every tenth of a window.
  options.inproc.flush_interval_s = context_.schedule.window_s / 10;
  options.inproc.max_spool_bytes = context_.spool_bytes;
  options.inproc.lock_hold_times = true;  // seer_lock_hold_seconds
  options.inproc.futex_tracepoints = context_.futex_tracepoints;
  // Watched where seer's runtime samples an unmodified program: launched
  // with it preloaded, or attached by injecting it. A seer-cc build recorded
  // in full takes the hooks' fast path, which does not sample, and a process
  // recorded with uprobes has no runtime (docs/daemon.md, "Races caught in the act").
  if (context_.watch_percent > 0) {
    if (options.mode == (pid > 0 ? recorder::RecordMode::kInject : recorder::RecordMode::kPreload))
      recorder::EnableWatch(context_.watch_percent, &options.inproc);
    else
      fprintf(stderr,
              "seer daemon: %s: not watched (watch samples programs without seer-cc hooks that the daemon launches "
              "or injects its runtime into; this one is recorded %s)\n",
              status_.target.c_str(), pid > 0 ? "with uprobes" : "in full or with uprobes");
  }
  options.open_writer = [this](const TraceWriterOptions& writer_options, std::unique_ptr<TraceWriter>* out) {
    auto writer = std::make_unique<WindowedTraceWriter>(context_.dir, label_, context_.schedule, writer_options,
                                                        context_.on_window, NowUnix);
    std::lock_guard<std::mutex> lock(mu_);
    writer_ = writer.get();
    *out = std::move(writer);
    return Status::Ok();
  };
  std::unique_ptr<recorder::Recording> recording;
  Status st = recorder::Recording::Start(options, &recording);
  if (!st.ok()) {
    fprintf(stderr, "seer daemon: %s: cannot record (%s mode): %s%s\n", status_.target.c_str(),
            std::string(recorder::RecordModeName(options.mode)).c_str(), st.ToString().c_str(),
            why_not_inject.empty() ? "" : ("; not by injection: " + why_not_inject).c_str());
    std::lock_guard<std::mutex> lock(mu_);
    if (writer_ != nullptr) AddStats(&finished_, writer_->stats());
    writer_ = nullptr;
    return false;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    status_.up = true;
    status_.mode = std::string(recorder::RecordModeName(options.mode));
    status_.attaches++;
  }
  fprintf(stderr, "seer daemon: recording %s%s (%s mode)\n", status_.target.c_str(),
          pid > 0 ? (" (process " + std::to_string(pid) + ")").c_str() : "", status_.mode.c_str());
  recording_.store(recording.get());
  if (stop_.load()) recording->Stop();  // Stop came while starting
  // The duty cycle pauses the runtime in the target where the mode can
  // (docs/daemon.md): off periods then cost it one load and branch per hook.
  // A window closes only once the events recorded before the pause are in it
  // (the drain), so that none of them reaches a later window, where a lock's
  // acquire would stand next to events from after the pause.
  const bool pausable = recording->SetPaused(false);
  bool paused = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (writer_ != nullptr) writer_->set_pausable(pausable);
  }
  bool running = true;
  while (running && st.ok()) {
    st = recording->Poll(&running);
    std::lock_guard<std::mutex> lock(mu_);
    if (writer_ == nullptr) continue;
    writer_->Tick();
    if (!pausable) continue;
    if (writer_->WantsEvents() == paused) {
      paused = !paused;
      recording->SetPaused(paused);
      status_.runtime_paused = paused;
    }
    if (paused && writer_->draining() && recording->PauseDrained()) writer_->EndDrain();
  }
  recording_.store(nullptr);
  recorder::RecordResult result;
  Status finished = recording->Finish(&result);
  if (st.ok()) st = finished;
  if (!st.ok())
    fprintf(stderr, "seer daemon: %s: the recording failed: %s\n", status_.target.c_str(), st.ToString().c_str());
  if (result.target_exited)
    fprintf(stderr, "seer daemon: %s exited (status %d)\n", status_.target.c_str(), result.ExitStatus());
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (writer_ != nullptr) AddStats(&finished_, writer_->stats());
    writer_ = nullptr;
    status_.up = false;
    status_.runtime_paused = false;
  }
  return true;
}

void TargetSupervisor::Run() {
  if (!target_.command.empty()) {
    RecordOnce(0);
    return;
  }
  if (target_.pid > 0) {
    RecordOnce(target_.pid);
    return;
  }
  // By name: record each process of that name in turn, as they come and go.
  pid_t refused = 0;
  while (!stop_.load()) {
    const pid_t pid = FindProcessByName(target_.name);
    if (pid > 0 && pid != refused) {
      // A process that could not be recorded is not tried again (it would
      // fail the same way); its successor is.
      if (!RecordOnce(pid)) refused = pid;
      continue;
    }
    for (int i = 0; i < 10 && !stop_.load(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

}  // namespace seer::daemon
