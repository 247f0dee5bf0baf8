// A kEbpf recording into a file that follows the target's processes, as the
// in-process modes do (runtime_modes/process_family.h), with the same rules
// and names: a process the target forks, and a program one of the recorded
// processes execs, is recorded into a trace of its own beside the main one
// (`run.seer` gives `run.PID.seer`, a later program of the same pid
// `run.PID.2.seer`: ProcessTracePath). The BPF tracer stops each such
// process before its first instruction (sync_event.h, stop_new_programs); it
// gets a recording of its own (ebpf_recording.h, adopted: its own probes,
// filtered to its pid, and its own merger and writer) and is then continued,
// so that nothing it does is missed. Any program it runs is followed, static
// or dynamic: the tracer needs no runtime in it. A launched program built
// with seer-cc: each process's runtime asks for rings of its own on a
// child_listener socket, as under the in-process modes, and gets the area its
// recording drains (under -p there is no socket: sync only, and said so).
//
// A launched recording ends once every recorded process has ended, and
// passes SIGTERM on to each; an attached one (-p) ends with the first
// process's, and the others are detached then and run on. A process that
// cannot be recorded (more than kMaxProcesses at once, a kernel that cannot
// stop it, one forked as the recording ended) is named in the result and in
// the main trace, with why, never dropped silently.
//
// What a user may notice: each followed process is stopped while its probes
// are attached (about a tenth of a second), and a parent that asked for
// SIGCHLD on its children's stops (no SA_NOCLDSTOP, or waitpid's WUNTRACED)
// sees that stop and the continue.
#pragma once

#include <memory>

#include "recorder/recorder.h"

namespace seer::recorder {

// Recording::Start for a kEbpf recording written to a file (not the service's
// windows, which record one process).
Status StartEbpfFamilyRecording(const RecordOptions& options, std::unique_ptr<Recording>* out);

}  // namespace seer::recorder
