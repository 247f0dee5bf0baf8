// The kInproc recording mode (recorder/recorder.h): a program built with
// seer-cc / seer-c++ (or any dynamic program with the runtime preloaded)
// records itself. This side creates the shared rings, runs the program with
// their descriptor in its environment, drains and merges the rings while it
// runs and writes the trace.
#pragma once

#include <memory>

#include "recorder/recorder.h"

namespace seer::recorder {

// Recording::Start for RecordMode::kInproc.
Status StartInprocRecording(const RecordOptions& options, std::unique_ptr<Recording>* out);

}  // namespace seer::recorder
