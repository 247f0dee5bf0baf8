// Keeps one target recorded: resolves it (a pid, an executable name, or a
// command it launches), starts the recording in the mode that suits it
// (launched: the preloaded or linked runtime; running: injection, else
// uprobes), cuts it into windows (WindowedTraceWriter), and for a target named
// by executable finds the next process of that name when one exits.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "daemon/config.h"
#include "daemon/metrics.h"
#include "daemon/window_writer.h"
#include "recorder/recorder.h"

namespace seer::daemon {

struct SupervisorContext {
  std::string dir;
  WindowSchedule schedule;
  uint64_t spool_bytes = 0;                          // RecordOptions::inproc.max_spool_bytes
  bool futex_tracepoints = false;                    // RecordOptions::inproc.futex_tracepoints
  double watch_percent = 0;                          // ServiceConfig::watch_percent (command targets)
  std::function<void(const WindowFile&)> on_window;  // from the recording's threads
};

class TargetSupervisor {
 public:
  // Starts a thread that records `target`; `index` names its windows (t<index>).
  TargetSupervisor(TargetConfig target, int index, SupervisorContext context);
  ~TargetSupervisor();  // Stop, then waits until the last window is closed

  // Ends the recording: attached processes run on, a launched target gets
  // SIGTERM. The open window is closed and handed on. Returns at once.
  void Stop();

  TargetStatus status() const;

  // The process of `name`: its executable's file name, or its comm. The oldest
  // such process other than this one; 0 when none runs.
  static pid_t FindProcessByName(const std::string& name);

 private:
  void Run();
  // One recording from start to finish; false when it could not start.
  bool RecordOnce(pid_t pid);

  const TargetConfig target_;
  const std::string label_;
  const SupervisorContext context_;
  std::atomic<bool> stop_{false};
  std::atomic<recorder::Recording*> recording_{nullptr};

  mutable std::mutex mu_;
  WindowedTraceWriter* writer_ = nullptr;  // owned by the running recording
  WindowedTraceWriter::Stats finished_;    // added up over finished recordings
  TargetStatus status_;
  std::thread thread_;
};

}  // namespace seer::daemon
