#include "daemon/service/service.h"

#include <sys/resource.h>

#include <cstdio>

#include "daemon/drain/spool_arena.h"
#include "daemon/service/clock.h"
#include "predictor/analyze.h"

namespace seer::service {

namespace {

double ProcessCpuSeconds() {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
}

}  // namespace

Status Service::Start(const ServiceConfig& config, std::unique_ptr<Service>* out) {
  Status st = ValidateConfig(config);
  if (!st.ok()) return st;
  std::vector<const EngineSpec*> engines;
  st = SelectEngines(config.analyses, &engines);
  if (!st.ok()) return st.WithContext("analyses");
  st = PrepareWindowDir(config.dir);
  if (!st.ok()) return st;
  std::unique_ptr<Service> s(new Service());
  s->config_ = config;
  Service* self = s.get();
  st = s->http_.Start(config.listen_host, config.listen_port,
                      {[self] { return self->MetricsText(); }, [self] { return self->FindingsJson(); },
                       [self](const std::string& id, bool html, std::string* body, std::string* type) {
                         return self->FindingReport(id, html, body, type);
                       }});
  if (!st.ok()) return st;
  s->worker_ = std::make_unique<AnalysisWorker>(
      [self](const WindowFile& w, const Status& st, const WindowAnalysis& a, double cpu) {
        self->WindowAnalysed(w, st, a, cpu);
      },
      [self](const std::string& signature) { return !self->findings_.HasHtml(signature); });
  s->worker_->SetEngines(engines);
  // The spool's copies of ring words live in the arena. Bounded to what the
  // spool may hold: a block kept long (a thread that records rarely) would
  // otherwise make the arena walk on through fresh pages that stay resident
  // (3-4 GB within a minute under load, docs/daemon.md "Memory").
  SpoolArena::Get().SetExtent(config.spool_bytes * config.targets.size());
  SupervisorContext context;
  context.dir = config.dir;
  context.schedule.window_s = config.window_s;
  context.schedule.duty_on_s = config.duty_on_s;
  context.schedule.duty_period_s = config.duty_period_s;
  context.schedule.min_free_bytes = config.retention.min_free_bytes;
  context.spool_bytes = config.spool_bytes;
  context.on_window = [self](const WindowFile& w) { self->WindowClosed(w); };
  for (size_t i = 0; i < config.targets.size(); ++i)
    s->targets_.push_back(std::make_unique<TargetSupervisor>(config.targets[i], static_cast<int>(i), context));
  *out = std::move(s);
  return Status::Ok();
}

Service::~Service() { Stop(); }

void Service::Stop() {
  if (stopped_) return;
  stopped_ = true;
  http_.Stop();  // first: its handlers read targets_
  for (auto& t : targets_) t->Stop();
  targets_.clear();  // joins: every open window is closed and queued
  if (worker_ != nullptr) worker_->Drain();
  worker_.reset();
}

Status Service::Reload(const ServiceConfig& config) {
  Status st = ValidateConfig(config);
  if (!st.ok()) return st;
  std::vector<const EngineSpec*> engines;
  st = SelectEngines(config.analyses, &engines);
  if (!st.ok()) return st.WithContext("analyses");
  std::lock_guard<std::mutex> lock(mu_);
  const bool restart_needed = config.listen_host != config_.listen_host || config.listen_port != config_.listen_port ||
                              config.dir != config_.dir || config.window_s != config_.window_s ||
                              config.duty_on_s != config_.duty_on_s || config.duty_period_s != config_.duty_period_s ||
                              config.targets.size() != config_.targets.size();
  if (restart_needed)
    fprintf(stderr, "seer daemon: reload: the listen address, directory, window, duty cycle and targets change "
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
    if (window.complete) WindowAnalysed(window, Status::Ok(), WindowAnalysis(), 0);
    return;
  }
  worker_->Enqueue(window);
}

void Service::WindowAnalysed(const WindowFile& window, const Status& st, const WindowAnalysis& analysis, double cpu) {
  if (!st.ok()) {
    fprintf(stderr, "seer daemon: cannot analyse %s: %s\n", window.path.c_str(), st.ToString().c_str());
    metrics_.AnalysisFailed(cpu);
  } else {
    metrics_.AddWindow(analysis, cpu);
    findings_.Merge(analysis.findings, window.start_unix);
  }
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> removed;
  Status r = EnforceRetention(config_.dir, config_.retention, NowUnix(), "", &removed, &usage_);
  if (!r.ok()) fprintf(stderr, "seer daemon: retention: %s\n", r.ToString().c_str());
  metrics_.WindowsRemoved(removed.size());
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
  *body = "finding " + f.id + " (" + f.latest.kind + ", " + f.latest.engine + ")\n" + "first seen: " +
          IsoTime(f.first_seen) + "\nlast seen: " + IsoTime(f.last_seen) + "\nwindows: " +
          std::to_string(f.windows) + "\nsignature: " + f.latest.signature + "\n\n" + f.latest.report;
  return true;
}

}  // namespace seer::service
