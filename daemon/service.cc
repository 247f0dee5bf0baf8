#include "daemon/service.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "daemon/analysis_process.h"
#include "daemon/clock.h"
#include "daemon/service_state.h"
#include "predictor/analyze.h"
#include "recorder/merge/spool_arena.h"
#include "recorder/trace_metadata.h"

namespace seer::daemon {

namespace {

std::string BaseName(const std::string& path) { return std::filesystem::path(path).filename().string(); }

// A window file left by an earlier run, as the analysis wants it: its start
// from its name (window-<unix ms>-<label>.seer), else from its mtime.
WindowFile EarlierWindow(const std::filesystem::path& path) {
  WindowFile w;
  w.path = path.string();
  w.complete = true;  // or what it committed: the analysis reads it either way
  const std::string name = path.filename().string();
  char* end = nullptr;
  const unsigned long long ms = std::strtoull(name.c_str() + 7, &end, 10);
  struct stat st;
  if (end != nullptr && *end == '-' && ms > 0)
    w.start_unix = ms / 1000.0;
  else if (stat(w.path.c_str(), &st) == 0)
    w.start_unix = st.st_mtim.tv_sec;
  w.end_unix = w.start_unix;
  return w;
}

// The engines each window is analysed with: `analyses`, and the watch engine
// when the targets are watched (its races were caught, not predicted).
Status WindowEngines(const ServiceConfig& config, std::vector<const predictor::EngineSpec*>* out) {
  Status st = predictor::SelectEngines(config.analyses, out);
  if (!st.ok() || config.watch_percent == 0) return st;
  for (const predictor::EngineSpec* e : *out)
    if (e->name == "watch") return st;
  const predictor::EngineSpec* watch = predictor::FindEngine("watch");
  if (watch == nullptr) return Status::NotFound("this build has no watch engine");
  out->push_back(watch);
  return st;
}

// This daemon's binary (the default seer of [slurm]: the same path on the nodes).
std::string SelfPath() {
  char path[4096];
  const ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
  return n > 0 ? std::string(path, static_cast<size_t>(n)) : std::string("seer");
}

}  // namespace

Status Service::Start(const ServiceConfig& config, std::unique_ptr<Service>* out) {
  Status st = ValidateConfig(config);
  if (!st.ok()) return st;
  std::vector<const predictor::EngineSpec*> engines;
  st = WindowEngines(config, &engines);
  if (!st.ok()) return st.WithContext("analyses");
  st = PrepareWindowDir(config.dir);
  if (!st.ok()) return st;
  std::unique_ptr<Service> s(new Service());
  s->config_ = config;
  s->analysis_command_ = MakeAnalysisCommand(config.analysis_program, config.slurm, SelfPath());
  if (config.slurm.on) {
    std::string line;
    for (const std::string& a : s->analysis_command_.argv) line += (line.empty() ? "" : " ") + a;
    fprintf(stderr, "seer daemon: window analyses run on the Slurm cluster: %s (the nodes read %s)\n", line.c_str(),
            config.dir.c_str());
  }
  Service* self = s.get();
  if (const char* slow = getenv(kTestSlowAnalysisEnv))
    fprintf(stderr, "seer daemon: test hook %s=%s: every analysis waits that many ms first\n", kTestSlowAnalysisEnv,
            slow);
  s->worker_ = std::make_unique<AnalysisWorker>(
      [self](const WindowFile& w, const std::vector<const predictor::EngineSpec*>& engines,
             const std::atomic<bool>& cancel, WindowAnalysis* out, double* cpu, bool* cancelled) {
        AnalysisRequest request;
        request.window_path = w.path;
        for (const predictor::EngineSpec* e : engines) request.engines.push_back(e->name);
        // Making a page reads the window again: only for findings that have none.
        request.have_html = self->findings_.SignaturesWithHtml();
        return AnalyzeInChildProcess(self->analysis_command_, request, cancel, out, cpu, cancelled);
      },
      [self](const WindowFile& w, AnalysisWorker::Outcome outcome, const Status& st, const WindowAnalysis& a,
             double cpu) { self->WindowAnalysed(w, outcome, st, a, cpu); });
  s->worker_->SetEngines(engines);
  // Listening before the directory is touched: a second daemon given the same
  // address fails here, before it takes the first one's windows.
  st = s->http_.Start(config.listen_host, config.listen_port,
                      {[self] { return self->MetricsText(); }, [self] { return self->FindingsJson(); },
                       [self](const std::string& id, bool html, std::string* body, std::string* type) {
                         return self->FindingReport(id, html, body, type);
                       }});
  if (!st.ok()) return st;
  s->Resume();
  // The spool's copies of ring words live in the arena. Bounded to what the
  // spool may hold: a block kept long (a thread that records rarely) would
  // otherwise make the arena walk on through fresh pages that stay resident
  // (3-4 GB within a minute under load, docs/daemon.md "Memory").
  recorder::SpoolArena::Get().SetExtent(config.spool_bytes * config.targets.size());
  SupervisorContext context;
  context.dir = config.dir;
  context.schedule.window_s = config.window_s;
  context.schedule.duty_on_s = config.duty_on_s;
  context.schedule.duty_period_s = config.duty_period_s;
  context.schedule.min_free_bytes = config.retention.min_free_bytes;
  context.spool_bytes = config.spool_bytes;
  context.futex_tracepoints = config.futex_tracepoints;
  context.watch_percent = config.watch_percent;
  context.on_window = [self](const WindowFile& w) { self->WindowClosed(w); };
  for (size_t i = 0; i < config.targets.size(); ++i)
    s->targets_.push_back(std::make_unique<TargetSupervisor>(config.targets[i], static_cast<int>(i), context));
  *out = std::move(s);
  return Status::Ok();
}

Service::~Service() { Stop(); }

void Service::Resume() {
  namespace fs = std::filesystem;
  ServiceState state;
  Status st = LoadServiceState(config_.dir, &state);
  const std::string path = config_.dir + "/" + kStateFileName;
  if (st.ok()) {
    findings_.Restore(state.findings);
    fprintf(stderr, "seer daemon: state of the last run: %zu findings, %zu windows analysed\n", state.findings.size(),
            state.windows_done.size());
  } else if (st.code() != Status::Code::kNotFound) {
    // Kept for a look, out of the way of the next save.
    const std::string aside = path + ".damaged";
    const bool moved = rename(path.c_str(), aside.c_str()) == 0;
    fprintf(stderr,
            "seer daemon: the state of the last run cannot be used (%s)%s: the findings start empty and "
            "every window is analysed again\n",
            st.ToString().c_str(), moved ? (", moved to " + aside).c_str() : "");
  }
  std::lock_guard<std::mutex> lock(mu_);
  // Retention first: a window it removes is not worth analysing.
  std::vector<std::string> removed;
  st = EnforceRetention(config_.dir, config_.retention, NowUnix(), "", &removed, &usage_);
  if (!st.ok()) fprintf(stderr, "seer daemon: retention: %s\n", st.ToString().c_str());
  metrics_.WindowsRemoved(removed.size());
  uint64_t skipped = 0;
  for (const std::string& r : removed) skipped += state.windows_done.count(BaseName(r)) == 0;
  if (skipped > 0) {
    metrics_.WindowsSkipped(skipped);
    fprintf(stderr, "seer daemon: retention removed %llu windows of the last run before their analysis\n",
            static_cast<unsigned long long>(skipped));
  }
  std::vector<fs::path> left;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(config_.dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("window-", 0) != 0 || e.path().extension() != ".seer") continue;
    // Only names of windows still on disk are kept in the state.
    if (state.windows_done.count(name) != 0)
      windows_done_.insert(name);
    else
      left.push_back(e.path());
  }
  if (ec) fprintf(stderr, "seer daemon: cannot list %s: %s\n", config_.dir.c_str(), ec.message().c_str());
  // Names carry the window's start: name order is age order.
  std::sort(left.begin(), left.end());
  for (const fs::path& w : left) worker_->Enqueue(EarlierWindow(w));
  if (!left.empty())
    fprintf(stderr, "seer daemon: %zu windows of the last run are not analysed yet: queued, oldest first\n",
            left.size());
}

void Service::Stop() {
  if (stopped_) return;
  stopped_ = true;
  http_.Stop();  // first: its handlers read targets_
  // The analysis next, at once: its queue can take minutes under load. What is
  // queued, the one cancelled and the windows closed below stay unanalysed
  // until the next start (they are not in the state's windows done).
  if (worker_ != nullptr) worker_->Stop();
  for (auto& t : targets_) t->Stop();
  targets_.clear();  // joins: every open window is closed and queued
  if (worker_ != nullptr)
    fprintf(stderr, "seer daemon: %zu windows left unanalysed; they are analysed at the next start\n",
            worker_->queued());
  worker_.reset();
}

Status Service::Reload(const ServiceConfig& config) {
  Status st = ValidateConfig(config);
  if (!st.ok()) return st;
  std::vector<const predictor::EngineSpec*> engines;
  st = WindowEngines(config, &engines);
  if (!st.ok()) return st.WithContext("analyses");
  std::lock_guard<std::mutex> lock(mu_);
  const bool restart_needed = config.listen_host != config_.listen_host || config.listen_port != config_.listen_port ||
                              config.dir != config_.dir || config.window_s != config_.window_s ||
                              config.duty_on_s != config_.duty_on_s || config.duty_period_s != config_.duty_period_s ||
                              config.targets.size() != config_.targets.size() || config.slurm != config_.slurm;
  if (restart_needed)
    fprintf(stderr,
            "seer daemon: reload: the listen address, directory, window, duty cycle, targets and [slurm] change "
            "only at a restart; the retention policy and analyses are taken now\n");
  config_.retention = config.retention;
  config_.analyses = config.analyses;
  worker_->SetEngines(engines);
  fprintf(stderr, "seer daemon: configuration reloaded (analyses: %s)\n",
          config.analyses.empty() ? "the default set" : config.analyses.c_str());
  return Status::Ok();
}

void Service::WindowClosed(const WindowFile& window) {
  if (window.path.empty() || window.events == 0) {
    // Nothing to analyse (an empty window is still counted as written).
    if (window.complete) WindowAnalysed(window, AnalysisWorker::Outcome::kAnalysed, Status::Ok(), WindowAnalysis(), 0);
    return;
  }
  worker_->Enqueue(window);
}

void Service::WindowAnalysed(const WindowFile& window, AnalysisWorker::Outcome outcome, const Status& st,
                             const WindowAnalysis& analysis, double cpu) {
  std::lock_guard<std::mutex> record(record_mu_);
  switch (outcome) {
    case AnalysisWorker::Outcome::kRemoved:
      fprintf(stderr, "seer daemon: %s was removed before its analysis\n", window.path.c_str());
      metrics_.WindowsSkipped(1);
      break;
    case AnalysisWorker::Outcome::kFailed:
      // Done for good: a window that cannot be analysed is not tried again at every start.
      fprintf(stderr, "seer daemon: cannot analyse %s: %s\n", window.path.c_str(), st.ToString().c_str());
      metrics_.AnalysisFailed(cpu);
      break;
    case AnalysisWorker::Outcome::kAnalysed:
      metrics_.AddWindow(analysis, cpu);
      findings_.Merge(analysis.findings, window.start_unix);
      break;
  }
  ServiceState state;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (outcome != AnalysisWorker::Outcome::kRemoved && !window.path.empty())
      windows_done_.insert(BaseName(window.path));
    std::vector<std::string> removed;
    Status r = EnforceRetention(config_.dir, config_.retention, NowUnix(), "", &removed, &usage_);
    if (!r.ok()) fprintf(stderr, "seer daemon: retention: %s\n", r.ToString().c_str());
    metrics_.WindowsRemoved(removed.size());
    for (const std::string& path : removed) windows_done_.erase(BaseName(path));
    state.windows_done = windows_done_;
  }
  state.findings = findings_.All();
  Status saved = SaveServiceState(config_.dir, state);
  if (!saved.ok())
    fprintf(stderr, "seer daemon: cannot save the state (findings and windows analysed): %s\n",
            saved.ToString().c_str());
}

std::string Service::MetricsText() const {
  LiveStatus live;
  for (const auto& t : targets_) live.targets.push_back(t->status());
  {
    std::lock_guard<std::mutex> lock(mu_);
    live.dir_windows = usage_.windows;
    live.dir_bytes = usage_.bytes;
  }
  live.process_cpu_seconds = ProcessCpuSeconds();
  live.windows_queued = worker_ != nullptr ? worker_->queued() : 0;
  return metrics_.Render(live, findings_.All());
}

bool Service::FindingReport(const std::string& id, bool html, std::string* body, std::string* content_type) const {
  MergedFinding f;
  if (!findings_.Find(id, &f)) return false;
  if (html && !f.html.empty()) {
    *body = f.html;
    *content_type = "text/html; charset=utf-8";
    return true;
  }
  *content_type = "text/plain; charset=utf-8";
  *body = "finding " + f.id + " (" + f.latest.kind + ", " + f.latest.engine + ")\n" +
          "first seen: " + recorder::IsoTime(f.first_seen) + "\nlast seen: " + recorder::IsoTime(f.last_seen) +
          "\nwindows: " + std::to_string(f.windows) + "\nsignature: " + f.latest.signature + "\n\n" + f.latest.report;
  return true;
}

}  // namespace seer::daemon
