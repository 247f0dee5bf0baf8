// Running a function inside another process (x86-64, ptrace): one of its
// threads is stopped where it holds none of libc's or the loader's locks, made
// to call the function with our arguments, and put back exactly where it was.
// The other threads run on throughout. Used to dlopen the runtime into a
// running process (injected_runtime.h).
#pragma once

#include <sys/types.h>
#include <sys/user.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "seer/status.h"

namespace seer::recorder {

class RemoteThread {
 public:
  RemoteThread(const RemoteThread&) = delete;
  RemoteThread& operator=(const RemoteThread&) = delete;
  // Puts the thread back (registers, then PTRACE_DETACH) if Release was not called.
  ~RemoteThread();

  // Stops a thread of `pid` at a safe point: blocked in a system call other
  // than a futex wait (epoll_wait, poll, nanosleep, read, accept...), else in
  // a futex wait, else running the main program's own code (`exe_start` to
  // `exe_end`), never inside libc or the loader. Tries each thread a few times
  // over about a second. Permission: ptrace not allowed (Yama, another tracer,
  // a different user without CAP_SYS_PTRACE). NotFound: no thread at a safe point.
  static Status Seize(pid_t pid, uint64_t exe_start, uint64_t exe_end, std::unique_ptr<RemoteThread>* out);

  // Calls `fn` with up to six integer arguments in the stopped thread and
  // returns its rax. `data` (e.g. a path) is copied below the thread's stack
  // first; an argument equal to kDataArg is replaced by its address.
  static constexpr uint64_t kDataArg = ~0ull - 0x5eed;
  Status Call(uint64_t fn, const std::vector<uint64_t>& args, const std::string& data, uint64_t* result);

  // Reads a NUL-terminated string of the process (at most `limit` bytes).
  std::string ReadString(uint64_t addr, size_t limit = 512) const;

  // Restores the registers and detaches: the thread resumes where it was (its
  // interrupted system call restarted as after any signal).
  Status Release();

  pid_t tid() const { return tid_; }

 private:
  RemoteThread(pid_t pid, pid_t tid, const user_regs_struct& saved) : pid_(pid), tid_(tid), saved_(saved) {}
  Status WriteMemory(uint64_t addr, const void* data, size_t size) const;

  pid_t pid_;
  pid_t tid_;
  user_regs_struct saved_;
  bool released_ = false;
};

}  // namespace seer::recorder
