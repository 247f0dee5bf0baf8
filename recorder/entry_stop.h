// Holds a freshly exec'd process at its program entry point, where the dynamic
// loader has mapped every library but no program code has run: the moment the
// recorder reads /proc/PID/maps for the module map and the call-site filter.
#pragma once

#include <sys/types.h>

#include <cstdint>

#include "seer/status.h"

namespace seer::recorder {

// In the child, before exec: ask to be traced, so that exec stops it.
void TraceMeBeforeExec();

class EntryStop {
 public:
  // In the parent, once the child was released to exec: waits for the exec stop and
  // runs the child to AT_ENTRY with a temporary breakpoint. NotFound when the child
  // exited instead (exec failed); *wait_status then holds its wait status.
  Status RunToEntry(pid_t pid, int* wait_status);

  // The same for a process that is not seer's child, stopped (SIGSTOP) just
  // after its exec by the BPF tracer (ebpf/ebpf_family.h): seizes it, runs it
  // to AT_ENTRY and holds it there. NotFound when it exited instead.
  Status RunStoppedToEntry(pid_t pid);

  // Removes the breakpoint, rewinds over it and lets the process go on untraced.
  Status Detach();

 private:
  pid_t pid_ = 0;
  uint64_t entry_ = 0;
  long saved_word_ = 0;
};

}  // namespace seer::recorder
