// The always-on service behind `seer daemon`: one TargetSupervisor per target
// writing windows into the window directory, the AnalysisWorker analysing each
// closed window (in a child process), findings merged in a FindingsRegistry,
// ServiceMetrics, the retention policy applied after each window, the state
// kept across restarts (service_state.h), and the HTTP endpoints.
#pragma once

#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "daemon/analysis_process.h"
#include "daemon/analysis_worker.h"
#include "daemon/config.h"
#include "daemon/findings_registry.h"
#include "daemon/http_server.h"
#include "daemon/metrics.h"
#include "daemon/retention.h"
#include "daemon/target_supervisor.h"
#include "seer/status.h"

namespace seer::daemon {

class Service {
 public:
  // Prepares the directory (0700), selects the analyses, loads the state of
  // the last run (a damaged state file is logged and set aside: the findings
  // start empty and every window is analysed again), listens, queues the
  // windows not analysed yet (oldest first, after retention), starts the
  // analysis thread and the targets' recordings. Errors: a directory that
  // cannot be made, an unknown analysis, an address that cannot be bound.
  static Status Start(const ServiceConfig& config, std::unique_ptr<Service>* out);
  ~Service();  // Stop

  // SIGHUP: takes the new retention policy and analyses at once; a change of
  // listen address, directory, window, duty cycle or targets needs a restart
  // (said on stderr). Errors leave the running configuration as it was.
  Status Reload(const ServiceConfig& config);

  // SIGTERM: stops serving, cancels the analysis in progress (its child is
  // killed), ends every recording (the open windows are closed and committed)
  // and logs how many windows were left unanalysed: they are analysed at the
  // next start. Takes about as long as ending the recordings, whatever the queue.
  void Stop();

  int port() const { return http_.port(); }

  std::string MetricsText() const;
  std::string FindingsJson() const { return findings_.Json(); }
  // The text report of finding `id` headed by first/last seen, or with `html`
  // its HTML report (predictor/report, from the first window that made one;
  // the text one until then). False: no such finding.
  bool FindingReport(const std::string& id, bool html, std::string* body, std::string* content_type) const;

 private:
  Service() = default;
  // The state of the last run, and the windows it left unanalysed, queued.
  void Resume();
  void WindowClosed(const WindowFile& window);
  void WindowAnalysed(const WindowFile& window, AnalysisWorker::Outcome outcome, const Status& st,
                      const WindowAnalysis& analysis, double cpu);

  ServiceConfig config_;
  AnalysisCommand analysis_command_;  // made at the start from config_ (analysis_process.h)
  // Held while a window's results are recorded and saved, so that the state
  // file always has a window's findings and its being done together, and
  // saves land in order.
  std::mutex record_mu_;
  mutable std::mutex mu_;  // config_.retention, usage_, windows_done_
  WindowDirUsage usage_;
  std::set<std::string> windows_done_;  // file names of the windows analysed (or failed)
  FindingsRegistry findings_;
  ServiceMetrics metrics_;
  HttpServer http_;
  std::unique_ptr<AnalysisWorker> worker_;
  std::vector<std::unique_ptr<TargetSupervisor>> targets_;
  bool stopped_ = false;
};

}  // namespace seer::daemon
