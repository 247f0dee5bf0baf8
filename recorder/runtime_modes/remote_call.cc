#include "recorder/runtime_modes/remote_call.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

#include "recorder/proc_maps.h"

namespace seer::recorder {
namespace {

using Clock = std::chrono::steady_clock;

// How safe it is to run dlopen on a thread stopped with these registers
// (higher is safer; 0: not at all). A thread blocked in the kernel waiting for
// input or time holds no lock of libc's; one in a futex wait may be inside a
// libc function (it waits for a lock, it may hold another); one running the
// program's own code holds none of libc's locks unless it is in a callback.
int SafetyOf(const user_regs_struct& r, uint64_t exe_start, uint64_t exe_end) {
  const long nr = static_cast<long>(r.orig_rax);
  const long ret = static_cast<long>(r.rax);
  // -ERESTARTSYS, -ERESTARTNOINTR, -ERESTARTNOHAND, -ERESTART_RESTARTBLOCK: a
  // blocking call the stop interrupted, which resumes after the detach.
  const bool interrupted = nr >= 0 && (ret == -EINTR || ret == -512 || ret == -513 || ret == -514 || ret == -516);
  if (interrupted) {
    switch (nr) {
      case SYS_futex: return 2;
      case SYS_epoll_wait:
      case SYS_epoll_pwait:
      case SYS_epoll_pwait2:
      case SYS_poll:
      case SYS_ppoll:
      case SYS_select:
      case SYS_pselect6:
      case SYS_nanosleep:
      case SYS_clock_nanosleep:
      case SYS_read:
      case SYS_readv:
      case SYS_accept:
      case SYS_accept4:
      case SYS_wait4:
      case SYS_waitid:
      case SYS_pause:
      case SYS_rt_sigtimedwait:
      case SYS_rt_sigsuspend:
      case SYS_recvfrom:
      case SYS_recvmsg: return 3;
      default: return 0;
    }
  }
  return nr < 0 && r.rip >= exe_start && r.rip < exe_end ? 1 : 0;
}

// Waits for a ptrace stop of `tid` at most `limit`; false on timeout.
bool WaitStop(pid_t tid, int* status, std::chrono::milliseconds limit) {
  const auto deadline = Clock::now() + limit;
  for (;;) {
    const pid_t w = waitpid(tid, status, __WALL | WNOHANG);
    if (w == tid) return true;
    if (w < 0 && errno != EINTR) {
      *status = 0;
      return true;  // gone
    }
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

}  // namespace

Status RemoteThread::Seize(pid_t pid, uint64_t exe_start, uint64_t exe_end, std::unique_ptr<RemoteThread>* out) {
  const std::string who = "process " + std::to_string(pid);
  // The safest kind of point first; busy threads are tried again a few times,
  // as they pass through the kernel now and then.
  for (int round = 0; round < 12; ++round) {
    const int wanted = round < 6 ? 3 : round < 9 ? 2 : 1;
    std::vector<pid_t> tids;
    Status st = ListThreads(pid, &tids);
    if (!st.ok()) return st;
    for (const pid_t tid : tids) {
      if (ptrace(PTRACE_SEIZE, tid, nullptr, nullptr) != 0) {
        if (errno == ESRCH) continue;  // the thread ended meanwhile
        return Status::Permission("ptrace is not allowed on " + who + ": " + std::strerror(errno) +
                                  " (another tracer, /proc/sys/kernel/yama/ptrace_scope, or no CAP_SYS_PTRACE)");
      }
      int status = 0;
      if (ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr) != 0 || !WaitStop(tid, &status, std::chrono::seconds(2)) ||
          !WIFSTOPPED(status)) {
        ptrace(PTRACE_DETACH, tid, nullptr, nullptr);
        continue;
      }
      if ((status >> 16) != PTRACE_EVENT_STOP) {  // a signal for the thread: hand it on, try another
        ptrace(PTRACE_DETACH, tid, nullptr, reinterpret_cast<void*>(static_cast<long>(WSTOPSIG(status))));
        continue;
      }
      user_regs_struct regs;
      if (ptrace(PTRACE_GETREGS, tid, nullptr, &regs) == 0 && SafetyOf(regs, exe_start, exe_end) >= wanted) {
        out->reset(new RemoteThread(pid, tid, regs));
        return Status::Ok();
      }
      ptrace(PTRACE_DETACH, tid, nullptr, nullptr);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(round < 6 ? 20 : 60));
  }
  return Status::NotFound("no thread of " + who +
                          " stopped at a point where it could load a library (blocked "
                          "in the kernel, or in the program's own code) within a second");
}

RemoteThread::~RemoteThread() { (void)Release(); }

Status RemoteThread::WriteMemory(uint64_t addr, const void* data, size_t size) const {
  const std::string path = "/proc/" + std::to_string(pid_) + "/mem";
  const int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return Status::IOError("opening " + path + ": " + std::strerror(errno));
  const ssize_t n = pwrite(fd, data, size, static_cast<off_t>(addr));
  const int err = errno;
  close(fd);
  if (n != static_cast<ssize_t>(size)) return Status::IOError("writing to " + path + ": " + std::strerror(err));
  return Status::Ok();
}

std::string RemoteThread::ReadString(uint64_t addr, size_t limit) const {
  const std::string path = "/proc/" + std::to_string(pid_) + "/mem";
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 || addr == 0) {
    if (fd >= 0) close(fd);
    return "";
  }
  std::string s(limit, '\0');
  const ssize_t n = pread(fd, s.data(), limit, static_cast<off_t>(addr));
  close(fd);
  s.resize(n > 0 ? static_cast<size_t>(n) : 0);
  return s.substr(0, s.find('\0'));
}

Status RemoteThread::Call(uint64_t fn, const std::vector<uint64_t>& args, const std::string& data, uint64_t* result) {
  if (args.size() > 6) return Status::InvalidArgument("a remote call takes at most six arguments");
  // Well below the red zone and whatever the interrupted code keeps under its stack pointer.
  uint64_t sp = saved_.rsp - 4096;
  sp = (sp - data.size() - 1) & ~15ull;
  const uint64_t data_addr = sp;
  Status st = WriteMemory(data_addr, data.c_str(), data.size() + 1);
  // The return address: 0, so that the return faults at rip 0, which we catch.
  sp -= 8;
  const uint64_t zero = 0;
  if (st.ok()) st = WriteMemory(sp, &zero, sizeof zero);
  if (!st.ok()) return st;
  user_regs_struct r = saved_;
  r.rsp = sp;
  r.rip = fn;
  r.rax = 0;
  r.orig_rax = ~0ull;  // not in a system call: no restart logic on the way out
  unsigned long long* regs[6] = {&r.rdi, &r.rsi, &r.rdx, &r.rcx, &r.r8, &r.r9};
  for (size_t i = 0; i < args.size(); ++i) *regs[i] = args[i] == kDataArg ? data_addr : args[i];
  if (ptrace(PTRACE_SETREGS, tid_, nullptr, &r) != 0 || ptrace(PTRACE_CONT, tid_, nullptr, nullptr) != 0)
    return Status::IOError(std::string("ptrace: ") + std::strerror(errno));
  const auto deadline = Clock::now() + std::chrono::seconds(20);
  for (;;) {
    int status = 0;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (!WaitStop(tid_, &status, std::max(left, std::chrono::milliseconds(0))))
      return Status::IOError("the call in thread " + std::to_string(tid_) + " did not return within 20 s");
    if (!WIFSTOPPED(status)) {
      released_ = true;  // nothing left to put back
      return Status::IOError("process " + std::to_string(pid_) + " ended during the call");
    }
    const int sig = WSTOPSIG(status);
    if ((status >> 16) == PTRACE_EVENT_STOP) {  // a group stop or a stray interrupt: go on
      ptrace(PTRACE_CONT, tid_, nullptr, nullptr);
      continue;
    }
    if (sig == SIGSEGV) {
      user_regs_struct done;
      if (ptrace(PTRACE_GETREGS, tid_, nullptr, &done) != 0)
        return Status::IOError(std::string("ptrace: ") + std::strerror(errno));
      if (done.rip != 0) {
        char at[32];
        snprintf(at, sizeof at, "%#llx", done.rip);
        return Status::IOError(std::string("the remote call crashed at ") + at);
      }
      *result = done.rax;
      return Status::Ok();
    }
    // A signal the program gets meanwhile: delivered, as it would have been.
    ptrace(PTRACE_CONT, tid_, nullptr, reinterpret_cast<void*>(static_cast<long>(sig)));
  }
}

Status RemoteThread::Release() {
  if (released_) return Status::Ok();
  released_ = true;
  const bool restored = ptrace(PTRACE_SETREGS, tid_, nullptr, &saved_) == 0;
  const int err = errno;
  ptrace(PTRACE_DETACH, tid_, nullptr, nullptr);
  if (!restored) return Status::IOError(std::string("restoring the thread's registers: ") + std::strerror(err));
  return Status::Ok();
}

}  // namespace seer::recorder
