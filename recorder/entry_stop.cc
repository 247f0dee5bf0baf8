// ptrace steps: exec stop, breakpoint at AT_ENTRY, restore, detach.
#include "recorder/entry_stop.h"

#include <elf.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>

namespace seer::recorder {
namespace {

Status PtraceError(const char* what, pid_t pid) {
  return Status::IOError(std::string(what) + " on process " + std::to_string(pid) + ": " + strerror(errno));
}

uint64_t AuxEntry(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/auxv", std::ios::binary);
  uint64_t pair[2];
  while (in.read(reinterpret_cast<char*>(pair), sizeof(pair))) {
    if (pair[0] == AT_NULL) break;
    if (pair[0] == AT_ENTRY) return pair[1];
  }
  return 0;
}

// Waits for the next stop of `pid`, passing on signals that are not ours.
Status WaitForTrap(pid_t pid, int* exit_status) {
  for (;;) {
    int status = 0;
    if (waitpid(pid, &status, 0) != pid) return PtraceError("waitpid", pid);
    if (WIFEXITED(status) || WIFSIGNALED(status)) {
      *exit_status = status;
      return Status::NotFound("the target exited before it started");
    }
    if (WIFSTOPPED(status) && WSTOPSIG(status) == SIGTRAP) return Status::Ok();
    if (ptrace(PTRACE_CONT, pid, nullptr, reinterpret_cast<void*>(static_cast<long>(WSTOPSIG(status)))) != 0)
      return PtraceError("PTRACE_CONT", pid);
  }
}

// Plants the temporary breakpoint at `entry` in `pid` (in a ptrace stop); *saved: the word it replaced.
Status PlantBreakpoint(pid_t pid, uint64_t entry, long* saved) {
  errno = 0;
  *saved = ptrace(PTRACE_PEEKTEXT, pid, reinterpret_cast<void*>(entry), nullptr);
  if (errno != 0) return PtraceError("PTRACE_PEEKTEXT", pid);
  long trap = static_cast<long>((static_cast<uint64_t>(*saved) & ~uint64_t{0xff}) | 0xcc);
  if (ptrace(PTRACE_POKETEXT, pid, reinterpret_cast<void*>(entry), reinterpret_cast<void*>(trap)) != 0)
    return PtraceError("PTRACE_POKETEXT", pid);
  return Status::Ok();
}

}  // namespace

void TraceMeBeforeExec() { ptrace(PTRACE_TRACEME, 0, nullptr, nullptr); }

Status EntryStop::RunToEntry(pid_t pid, int* exit_status) {
  pid_ = pid;
  Status st = WaitForTrap(pid, exit_status);  // the exec
  if (!st.ok()) return st;
  entry_ = AuxEntry(pid);
  if (entry_ == 0) return Status::Internal("no AT_ENTRY in /proc/" + std::to_string(pid) + "/auxv");
  st = PlantBreakpoint(pid, entry_, &saved_word_);
  if (!st.ok()) return st;
  if (ptrace(PTRACE_CONT, pid, nullptr, nullptr) != 0) return PtraceError("PTRACE_CONT", pid);
  return WaitForTrap(pid, exit_status);  // the breakpoint
}

Status EntryStop::RunStoppedToEntry(pid_t pid) {
  pid_ = pid;
  if (ptrace(PTRACE_SEIZE, pid, nullptr, nullptr) != 0) return PtraceError("PTRACE_SEIZE", pid);
  // Seized while stopped, it reports that stop to its new tracer.
  int status = 0;
  if (waitpid(pid, &status, __WALL) != pid) return PtraceError("waitpid", pid);
  if (!WIFSTOPPED(status)) return Status::NotFound("the process exited before it started");
  entry_ = AuxEntry(pid);
  if (entry_ == 0) return Status::Internal("no AT_ENTRY in /proc/" + std::to_string(pid) + "/auxv");
  Status st = PlantBreakpoint(pid, entry_, &saved_word_);
  if (!st.ok()) return st;
  // SIGCONT ends the group stop (a seized process stays in its ptrace stop
  // until PTRACE_CONT); its delivery, and any other signal, is passed on.
  kill(pid, SIGCONT);
  int deliver = 0;
  for (;;) {
    if (ptrace(PTRACE_CONT, pid, nullptr, reinterpret_cast<void*>(static_cast<long>(deliver))) != 0)
      return PtraceError("PTRACE_CONT", pid);
    int wait_status = 0;
    if (waitpid(pid, &wait_status, __WALL) != pid) return PtraceError("waitpid", pid);
    if (WIFEXITED(wait_status) || WIFSIGNALED(wait_status))
      return Status::NotFound("the process exited before it started");
    const int sig = WSTOPSIG(wait_status);
    if (sig == SIGTRAP && (wait_status >> 16) == 0) return Status::Ok();  // the breakpoint
    // A group stop (PTRACE_EVENT_STOP) is not a signal to deliver.
    deliver = (wait_status >> 16) == PTRACE_EVENT_STOP ? 0 : sig;
  }
}

Status EntryStop::Detach() {
  pid_t pid = pid_;
  if (ptrace(PTRACE_POKETEXT, pid, reinterpret_cast<void*>(entry_), reinterpret_cast<void*>(saved_word_)) != 0)
    return PtraceError("PTRACE_POKETEXT", pid);
  user_regs_struct regs;
  if (ptrace(PTRACE_GETREGS, pid, nullptr, &regs) != 0) return PtraceError("PTRACE_GETREGS", pid);
  regs.rip = entry_;  // back over the int3
  if (ptrace(PTRACE_SETREGS, pid, nullptr, &regs) != 0) return PtraceError("PTRACE_SETREGS", pid);
  if (ptrace(PTRACE_DETACH, pid, nullptr, nullptr) != 0) return PtraceError("PTRACE_DETACH", pid);
  return Status::Ok();
}

}  // namespace seer::recorder
