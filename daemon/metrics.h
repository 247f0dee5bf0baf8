// The service's metrics: what the analysis of each window adds up (events by
// kind, losses, lock contention per lock and call site, windows analysed or
// failed, the analysis's CPU time), and the rendering of all of them, with the
// live values the caller reads at scrape time, as Prometheus text.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "daemon/findings_registry.h"
#include "daemon/lock_contention.h"
#include "seer/event.h"

namespace seer::daemon {

// What the targets' recordings report at scrape time.
struct TargetStatus {
  std::string target;  // TargetConfig::Describe()
  std::string mode;    // recording mode, "" when none runs
  bool up = false;     // a recording runs
  uint64_t windows_written = 0;
  uint64_t windows_failed = 0;
  uint64_t events_skipped = 0;  // outside the duty cycle's on periods or while paused
  bool paused_disk = false;
  uint64_t attaches = 0;        // recordings started for this target
  bool runtime_paused = false;  // the runtime in the target writes nothing (Recording::SetPaused)
};

struct LiveStatus {
  std::vector<TargetStatus> targets;
  uint64_t dir_windows = 0;
  uint64_t dir_bytes = 0;
  double process_cpu_seconds = 0;  // the daemon's own user + system time (the analysis runs in children)
  uint64_t windows_queued = 0;     // closed windows waiting for their analysis, or in it
};

class ServiceMetrics {
 public:
  void AddWindow(const WindowAnalysis& w, double analysis_cpu_seconds);
  void AnalysisFailed(double analysis_cpu_seconds);
  void WindowsRemoved(uint64_t n);
  // Windows whose file was removed (by retention) before they were analysed.
  void WindowsSkipped(uint64_t n);

  // The whole exposition. Recorder CPU is the process's own CPU time: the
  // analysis runs in child processes, whose time the analysis counts.
  std::string Render(const LiveStatus& live, const std::vector<MergedFinding>& findings) const;

  // The contention of every window so far, for the dashboard: (lock, site).
  std::map<std::pair<std::string, std::string>, ContentionStats> Contention() const;

 private:
  mutable std::mutex mu_;
  std::array<uint64_t, kNumEventKinds> events_by_kind_{};
  uint64_t lost_ = 0;
  uint64_t windows_analysed_ = 0;
  uint64_t analysis_failed_ = 0;
  uint64_t windows_removed_ = 0;
  uint64_t windows_skipped_ = 0;
  double analysis_cpu_ = 0;
  std::map<std::pair<std::string, std::string>, ContentionStats> contention_;
  std::map<std::pair<std::string, std::string>, uint64_t> finding_occurrences_;  // (kind, engine)
};

}  // namespace seer::daemon
