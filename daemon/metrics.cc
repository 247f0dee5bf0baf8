#include "daemon/metrics.h"

#include "daemon/prometheus_text.h"

namespace seer::daemon {

void ServiceMetrics::AddWindow(const WindowAnalysis& w, double analysis_cpu_seconds) {
  std::lock_guard<std::mutex> lock(mu_);
  for (int k = 0; k < kNumEventKinds; ++k) events_by_kind_[k] += w.by_kind[k];
  lost_ += w.lost;
  windows_analysed_++;
  analysis_cpu_ += analysis_cpu_seconds;
  for (const ContentionRecord& c : w.contention) {
    std::pair<std::string, std::string> key{c.lock, c.site};
    if (contention_.size() >= kMaxContentionSeries && contention_.count(key) == 0) key.first = kOtherLocksName;
    contention_[key].Merge(c.stats);
  }
  for (const FindingRecord& f : w.findings) finding_occurrences_[{f.kind, f.engine}]++;
}

void ServiceMetrics::AnalysisFailed(double analysis_cpu_seconds) {
  std::lock_guard<std::mutex> lock(mu_);
  analysis_failed_++;
  analysis_cpu_ += analysis_cpu_seconds;
}

void ServiceMetrics::WindowsRemoved(uint64_t n) {
  std::lock_guard<std::mutex> lock(mu_);
  windows_removed_ += n;
}

void ServiceMetrics::WindowsSkipped(uint64_t n) {
  std::lock_guard<std::mutex> lock(mu_);
  windows_skipped_ += n;
}

namespace {

// One lock and site's series of histogram `name`: cumulative buckets, sum, count.
void HistogramSamples(PrometheusText* p, const std::string& name, const std::pair<std::string, std::string>& key,
                      const Buckets& buckets, uint64_t count, double sum) {
  uint64_t cumulative = 0;
  for (size_t b = 0; b < kWaitBucketBounds.size(); ++b) {
    cumulative += buckets[b];
    p->Sample(name + "_bucket",
              {{"lock", key.first}, {"site", key.second}, {"le", PrometheusText::Number(kWaitBucketBounds[b])}},
              static_cast<double>(cumulative));
  }
  p->Sample(name + "_bucket", {{"lock", key.first}, {"site", key.second}, {"le", "+Inf"}}, static_cast<double>(count));
  p->Sample(name + "_sum", {{"lock", key.first}, {"site", key.second}}, sum);
  p->Sample(name + "_count", {{"lock", key.first}, {"site", key.second}}, static_cast<double>(count));
}

}  // namespace

std::map<std::pair<std::string, std::string>, ContentionStats> ServiceMetrics::Contention() const {
  std::lock_guard<std::mutex> lock(mu_);
  return contention_;
}

std::string ServiceMetrics::Render(const LiveStatus& live, const std::vector<MergedFinding>& findings) const {
  std::lock_guard<std::mutex> lock(mu_);
  PrometheusText p;
  p.Family("seer_events_recorded_total", "counter", "Events in analysed windows, by event kind.");
  for (int k = 0; k < kNumEventKinds; ++k)
    p.Sample("seer_events_recorded_total", {{"kind", std::string(EventKindName(static_cast<EventKind>(k)))}},
             static_cast<double>(events_by_kind_[k]));
  p.Family("seer_events_lost_total", "counter", "Events the recorder lost in analysed windows.");
  p.Sample("seer_events_lost_total", {}, static_cast<double>(lost_));
  p.Family("seer_events_skipped_total", "counter",
           "Events left out of the windows: outside the duty cycle's on periods, or while recording was paused.");
  for (const TargetStatus& t : live.targets)
    p.Sample("seer_events_skipped_total", {{"target", t.target}}, static_cast<double>(t.events_skipped));

  p.Family("seer_windows_written_total", "counter", "Window trace files closed complete.");
  for (const TargetStatus& t : live.targets)
    p.Sample("seer_windows_written_total", {{"target", t.target}}, static_cast<double>(t.windows_written));
  p.Family("seer_windows_failed_total", "counter",
           "Windows that could not be written (stage=write) or analysed (stage=analysis).");
  uint64_t write_failed = 0;
  for (const TargetStatus& t : live.targets) write_failed += t.windows_failed;
  p.Sample("seer_windows_failed_total", {{"stage", "write"}}, static_cast<double>(write_failed));
  p.Sample("seer_windows_failed_total", {{"stage", "analysis"}}, static_cast<double>(analysis_failed_));
  p.Family("seer_windows_analysed_total", "counter", "Windows analysed.");
  p.Sample("seer_windows_analysed_total", {}, static_cast<double>(windows_analysed_));
  p.Family("seer_windows_removed_total", "counter", "Window files removed by the retention policy.");
  p.Sample("seer_windows_removed_total", {}, static_cast<double>(windows_removed_));
  p.Family("seer_windows_skipped_total", "counter",
           "Windows whose file was removed (by the retention policy) before they were analysed.");
  p.Sample("seer_windows_skipped_total", {}, static_cast<double>(windows_skipped_));
  p.Family("seer_windows_queued", "gauge",
           "Closed windows waiting for their analysis or in it (those of an earlier run included).");
  p.Sample("seer_windows_queued", {}, static_cast<double>(live.windows_queued));
  p.Family("seer_window_files", "gauge", "Window files in the window directory.");
  p.Sample("seer_window_files", {}, static_cast<double>(live.dir_windows));
  p.Family("seer_window_files_bytes", "gauge", "Disk space the window files take.");
  p.Sample("seer_window_files_bytes", {}, static_cast<double>(live.dir_bytes));

  p.Family("seer_target_up", "gauge", "1 while a recording of the target runs.");
  for (const TargetStatus& t : live.targets)
    p.Sample("seer_target_up", {{"target", t.target}, {"mode", t.mode}}, t.up ? 1 : 0);
  p.Family("seer_target_recordings_total", "counter", "Recordings started for the target (attaches or launches).");
  for (const TargetStatus& t : live.targets)
    p.Sample("seer_target_recordings_total", {{"target", t.target}}, static_cast<double>(t.attaches));
  p.Family("seer_recording_paused", "gauge", "1 while recording is paused because the disk is short of space.");
  for (const TargetStatus& t : live.targets)
    p.Sample("seer_recording_paused", {{"target", t.target}, {"reason", "disk_full"}}, t.paused_disk ? 1 : 0);
  p.Family("seer_target_runtime_paused", "gauge",
           "1 while the runtime in the target is paused (duty cycle off, or no window open) and records nothing.");
  for (const TargetStatus& t : live.targets)
    p.Sample("seer_target_runtime_paused", {{"target", t.target}}, t.runtime_paused ? 1 : 0);

  p.Family("seer_recorder_cpu_seconds_total", "counter",
           "CPU time of the daemon outside the window analysis: recording, merging, encoding, serving.");
  p.Sample("seer_recorder_cpu_seconds_total", {}, live.process_cpu_seconds);
  p.Family("seer_analysis_cpu_seconds_total", "counter",
           "CPU time of the window analysis (its processes, at idle priority).");
  p.Sample("seer_analysis_cpu_seconds_total", {}, analysis_cpu_);

  p.Family("seer_findings", "gauge", "Distinct findings (merged across windows by signature), by kind and engine.");
  std::map<std::pair<std::string, std::string>, uint64_t> distinct;
  for (const MergedFinding& f : findings) distinct[{f.latest.kind, f.latest.engine}]++;
  for (const auto& [key, n] : distinct)
    p.Sample("seer_findings", {{"kind", key.first}, {"engine", key.second}}, static_cast<double>(n));
  p.Family("seer_finding_occurrences_total", "counter", "Findings reported by window analyses, by kind and engine.");
  for (const auto& [key, n] : finding_occurrences_)
    p.Sample("seer_finding_occurrences_total", {{"kind", key.first}, {"engine", key.second}}, static_cast<double>(n));

  p.Family("seer_lock_acquisitions_total", "counter", "Lock acquisitions, by lock and acquiring call site.");
  for (const auto& [key, s] : contention_)
    p.Sample("seer_lock_acquisitions_total", {{"lock", key.first}, {"site", key.second}},
             static_cast<double>(s.acquisitions));
  p.Family("seer_lock_contended_acquisitions_total", "counter",
           "Lock acquisitions that found the lock busy and waited, by lock and acquiring call site.");
  for (const auto& [key, s] : contention_)
    p.Sample("seer_lock_contended_acquisitions_total", {{"lock", key.first}, {"site", key.second}},
             static_cast<double>(s.contended));
  p.Family("seer_lock_wait_seconds", "histogram",
           "How long contended acquisitions waited for the lock, by lock and acquiring call site.");
  for (const auto& [key, s] : contention_)
    if (s.contended != 0) HistogramSamples(&p, "seer_lock_wait_seconds", key, s.buckets, s.contended, s.wait_seconds);
  p.Family("seer_lock_hold_seconds", "histogram",
           "How long the lock was held, from the acquire (or cond-wait return) at the call site to the release.");
  for (const auto& [key, s] : contention_)
    if (s.held != 0) HistogramSamples(&p, "seer_lock_hold_seconds", key, s.hold_buckets, s.held, s.hold_seconds);
  return p.text();
}

}  // namespace seer::daemon
