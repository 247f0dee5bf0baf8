// The TraceWriter a service recording writes to: it cuts the one stream of
// events the recorder produces into one trace file per window, in the window
// directory, following the duty cycle (events outside an on period are left
// out, and counted), and pauses when the disk is short of space. Each closed
// window is handed to a callback (for retention and analysis).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "recorder/attach_filter.h"
#include "seer/trace.h"

namespace seer::daemon {

struct WindowFile {
  std::string path;
  uint64_t events = 0;
  double start_unix = 0;  // seconds since the epoch
  double end_unix = 0;
  bool complete = false;  // false: the writer failed; the file holds what was committed
  std::string error;      // why, when not complete
};

struct WindowSchedule {
  double window_s = 10;
  double duty_on_s = 0;  // with duty_period_s 0: continuous
  double duty_period_s = 0;
  uint64_t min_free_bytes = 0;
};

class WindowedTraceWriter final : public TraceWriter {
 public:
  using ClosedCallback = std::function<void(const WindowFile&)>;

  // Windows are `dir`/window-<unix ms>-<label>.seer, mode 0600. `now` is the
  // clock (seconds since the epoch; tests give their own).
  WindowedTraceWriter(std::string dir, std::string label, const WindowSchedule& schedule,
                      const TraceWriterOptions& options, ClosedCallback on_closed, std::function<double()> now);
  ~WindowedTraceWriter() override;

  // Closes the window when it is due and opens the next one when the duty
  // cycle is on (and the disk has room). The service calls it between polls,
  // so that windows are cut while the target is quiet too.
  void Tick();

  // For a recording that can pause its target (recorder::Recording::SetPaused).
  // At the end of an on period the window then stays open, draining: it takes
  // the events recorded before the pause that are still on their way, until
  // EndDrain() (the recording says they have all come) or, should that never
  // come, when the next on period begins (DrainLimit). Without it the window
  // closes on time and what comes later is skipped.
  void set_pausable(bool pausable);
  // True while the target should record: a window is open and not draining.
  bool WantsEvents() const;
  bool draining() const;
  void EndDrain();

  void SetMeta(const std::string& key, const std::string& value) override;
  void AddThread(const ThreadInfo& thread) override;
  void AddModule(const ModuleInfo& module) override;
  void SetName(Namespace ns, uint64_t id, const std::string& name) override;
  void AddLost(const std::string& where, EventKind kind, uint64_t count) override;
  // Passed on with the time measured from the window's opening (the last
  // sample before it), so that each window's clock table starts near 0.
  void AddClockSample(uint64_t ns) override;
  // Never fails: a window that cannot be written is closed as failed and
  // recording pauses (the recording itself goes on).
  Status Append(const Event& event) override;
  Status Flush() override;
  Status Close() override;
  uint64_t events_written() const override;

  struct Stats {
    uint64_t windows_written = 0;
    uint64_t windows_failed = 0;
    uint64_t events_skipped = 0;      // outside the duty cycle's on periods, or while paused
    uint64_t unmatched_releases = 0;  // left out: their acquire was in an earlier window
    bool recording = false;           // a window is open
    bool paused_disk = false;         // recording paused: less free space than min_free_bytes
  };
  Stats stats() const;

 private:
  bool OnAt(double t) const;  // inside an on period
  double OnPeriodEnd(double t) const;
  double DrainLimit() const;
  void OpenLocked(double t);
  void CloseLocked(double t, const std::string& error);
  void ReplayTables();

  const std::string dir_;
  const std::string label_;
  const WindowSchedule schedule_;
  const TraceWriterOptions options_;
  const ClosedCallback on_closed_;
  const std::function<double()> now_;
  const double origin_;

  mutable std::mutex mu_;
  std::unique_ptr<TraceWriter> current_;
  std::unique_ptr<recorder::AttachFilter> filter_;  // per window: releases whose acquire it lacks
  WindowFile window_;
  double deadline_ = 0;
  bool deadline_ends_period_ = false;  // the window closes at its on period's end
  bool pausable_ = false;
  bool draining_ = false;
  uint64_t last_clock_ns_ = 0;    // the recording's latest clock sample
  uint64_t window_clock_ns_ = 0;  // its value when the current window opened
  bool closed_ = false;
  uint64_t appended_ = 0;
  Stats stats_;
  // What every window repeats, so that each is a trace of its own: metadata,
  // threads, modules, names.
  std::map<std::string, std::string> meta_;
  std::map<uint32_t, ThreadInfo> threads_;
  std::vector<ModuleInfo> modules_;
  std::map<std::pair<Namespace, uint64_t>, std::string> names_;
};

}  // namespace seer::daemon
