// The kEbpf recording mode (recorder/recorder.h): launches the target held
// before exec, or attaches to a running process, traces its synchronisation
// with the BPF sync tracer, merges the records into the trace's total order
// and, for a target built with seer's runtime, joins in its rings' accesses.
#pragma once

#include <memory>

#include "recorder/recorder.h"

namespace seer::recorder {

// Recording::Start for RecordMode::kEbpf.
Status StartEbpfRecording(const RecordOptions& options, std::unique_ptr<Recording>* out);

}  // namespace seer::recorder
