// The kEbpf recording mode (recorder/recorder.h) of one process: launches the
// target held before exec, attaches to a running process, or adopts one the
// BPF tracer stopped for it (a process of a followed family, ebpf_family.h);
// traces its synchronisation with the BPF sync tracer, merges the records
// into the trace's total order and, for a target built with seer's runtime,
// joins in its rings' accesses.
#pragma once

#include <sys/types.h>

#include <functional>
#include <memory>

#include "recorder/recorder.h"

namespace seer::recorder {

// A process the BPF tracer stopped before its first instruction, for a
// follower to record (ebpf_family.h): forked by the process recorded, or that
// process itself once it exec'd. It stays stopped until someone sends it
// SIGCONT.
struct NewProgram {
  pid_t pid = 0;
  pid_t parent = 0;     // the process that forked it; after an exec, the parent of the one that exec'd
  bool forked = false;  // else exec'd
};

// How one process's recording takes part in following its family.
struct EbpfFollow {
  // Set: the processes the recorded one forks, and itself at an exec, are
  // stopped and handed to `seen` (from Poll or Finish), which must see that
  // each is continued. Empty (or a kernel that cannot stop them): they run on
  // and are named in the result as not recorded.
  std::function<void(const NewProgram&)> seen;
  // options.pid is `adopted.pid`, stopped by the tracer: it is recorded from
  // its first instruction, its threads beginning without a fork.
  bool adopt = false;
  NewProgram adopted;
};

// One process's kEbpf recording.
class EbpfProcessRecording : public Recording {
 public:
  // An adopted process whose program carries seer's runtime, recorded with
  // options.ebpf.runtime, asks for rings of its own (its runtime's atfork
  // handler or start-up, runtime_modes/child_listener.h): `send` hands it the
  // memfd of the area this recording drains and joins with the probes'
  // events. NotSupported when this recording has no such area.
  virtual Status GiveRuntimeArea(const std::function<Status(int area_fd)>& send) = 0;
};

// Recording::Start for RecordMode::kEbpf with one process and its threads.
Status StartEbpfRecording(const RecordOptions& options, const EbpfFollow& follow,
                          std::unique_ptr<EbpfProcessRecording>* out);

}  // namespace seer::recorder
