// An in-process recording that follows the program's processes: a launched
// one (kInproc, kPreload) or a process attached by injection (kInject). A
// process that forks from a recorded one, or a program one of them execs that
// loads the runtime (built with seer-cc, or preloaded: the environment is
// inherited), asks for rings of its own (child_listener.h) and is recorded
// into a trace of its own beside the main one: `run.seer` gives
// `run.PID.seer`. A launched recording ends once every recorded process has
// ended; an attached one ends with the first process's (the detach, or its
// exit), and the processes it forked are detached then, as it is, and run on.
// A process seen that did not ask (a child that /proc lists, a recorded
// process whose program changed, an attached process's children forked
// before the attach) is named in the result and in the main trace, with why,
// never dropped silently.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "recorder/recorder.h"

namespace seer::recorder {

// Recording::Start for a launched kInproc or kPreload recording, or a kInject
// one, written to a file.
Status StartProcessFamilyRecording(const RecordOptions& options, std::unique_ptr<Recording>* out);

// Where the trace of process `pid` goes, beside `output`: "run.seer" and 42
// give "run.42.seer"; `nth` > 1 numbers a later program of the same pid
// ("run.42.2.seer"). A name without the ".seer" ending gets ".42".
std::string ProcessTracePath(const std::string& output, pid_t pid, int nth);

// Names the family's other processes in the first trace (through
// `main`'s AddEndMeta, before its Finish): record.processes lists the
// recorded ones ("PID forked by PARENT: PATH"), record.unrecorded_processes
// the others, each with why. The eBPF family (ebpf/ebpf_family.h) uses it too.
void NameFamilyInFirstTrace(const std::vector<RecordResult::ProcessTrace>& traces,
                            const std::vector<std::string>& unrecorded, Recording* main);

}  // namespace seer::recorder
