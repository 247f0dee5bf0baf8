// The kInproc recording mode (recorder/recorder.h): a program built with
// seer-cc / seer-c++ (or any dynamic program with the runtime preloaded)
// records itself. This side creates the shared rings, runs the program with
// their descriptor in its environment, drains and merges the rings while it
// runs and writes the trace.
#pragma once

#include <sys/types.h>

#include <functional>
#include <memory>

#include "recorder/recorder.h"

namespace seer::recorder {

// Recording::Start for RecordMode::kInproc.
Status StartInprocRecording(const RecordOptions& options, std::unique_ptr<Recording>* out);

// A process of a launched recording's family that asked for rings of its own
// (runtime_modes/process_family.h).
struct ChildProcess {
  pid_t pid = 0;
  pid_t parent = 0;
  bool forked = false;  // else a program exec'd
  // Hands the area's memfd to the process, which then records.
  std::function<Status(int area_fd)> give_area;
};

// Records `child` into options.output from now on, as an attached process is
// recorded: its thread begins without a fork, and a lock it held at the fork
// is released without its acquire (left out, counted). Not seer's child: it
// is watched through a pidfd, and its exit code is not known. When the area
// cannot be given, no trace is left at options.output, and a process that
// has ended meanwhile gives NotFound(kEndedWhileAsking).
inline constexpr const char* kEndedWhileAsking = "it ended while it asked for rings, before its recording began";
Status StartChildRecording(const RecordOptions& options, const ChildProcess& child, std::unique_ptr<Recording>* out);

}  // namespace seer::recorder
