// The priority of the recorder's background threads (the merger and the
// writers it starts): SCHED_IDLE or a nice level while the target runs, so
// that merging and encoding take the cores the target leaves idle.
#pragma once

#include <sys/types.h>

#include <set>

namespace seer::recorder {

// The threads of this process now, by kernel tid.
std::set<pid_t> Tasks();

// Lowers thread `tid` (0: the calling one) to the background priority
// `idle_nice` names (InprocOptions::idle_nice), or (`idle` false) back to
// SCHED_OTHER at nice 0.
void SetThreadPriority(pid_t tid, bool idle, int idle_nice);

// Puts the threads the recording started (every thread but the calling one and
// those in `others`: the merger and the writer it started) at the background
// priority, or back to SCHED_OTHER at nice 0. Best effort: leaving SCHED_IDLE
// or a higher nice needs CAP_SYS_NICE or an RLIMIT_NICE allowance (root has
// both); without, they stay in the background, slower on a busy machine but
// never wrong.
void SetDrainPriority(bool idle, int idle_nice, const std::set<pid_t>& others);

}  // namespace seer::recorder
