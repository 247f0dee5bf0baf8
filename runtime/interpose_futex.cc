// Raw futex system calls made through libc's syscall(): custom locks and
// conditions, libstdc++'s atomic waits (std::atomic::wait, std::latch,
// std::counting_semaphore) and static-init guards, futex_waitv. The runtime
// records them as the futex tracepoints do (bpf/seer_sync.bpf.c), from inside
// the target and without their cost: while a syscall tracepoint is attached,
// every system call of every process on the machine takes the kernel's
// tracing slow path (docs/recording.md).
//   - a wake (FUTEX_WAKE, WAKE_BITSET, WAKE_OP, the requeues, UNLOCK_PI) is a
//     signal on the futex word, numbered in the global domain before the call;
//   - a wait that returned 0 (it was woken; EAGAIN, timeouts and signals are
//     not edges) is a wait on the word, numbered after the call, so after the
//     wake that ended it;
//   - futex_waitv's wait is on the word whose index the call returned.
// libc's own futex calls (a contended pthread_mutex_lock, sem_wait, ...) issue
// the instruction inside libc and never come here: they belong to calls
// already recorded. A program that issues the instruction itself is not seen
// here (seer record --futex-tracepoints sees it).
#include <linux/futex.h>
#include <sys/syscall.h>

#include <cerrno>
#include <cstdarg>
#include <cstdint>

#include "runtime/real_function.h"
#include "runtime/rt_state.h"

#ifndef SYS_futex_waitv
#define SYS_futex_waitv 449  // x86-64; glibc headers before 2.35 lack it
#endif

namespace seer::rt {
namespace {

RealFunction<SyscallFn> real_syscall("syscall");

constexpr int kCmdMask = ~(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME);

// The commands the tracepoints turn into a signal (at entry) or, when the call
// returned 0, a wait (at exit): bpf/seer_sync.bpf.c, on_futex_enter/exit.
bool Wakes(int cmd) {
  switch (cmd) {
    case FUTEX_WAKE:
    case FUTEX_WAKE_BITSET:
    case FUTEX_WAKE_OP:
    case FUTEX_REQUEUE:
    case FUTEX_CMP_REQUEUE:
    case FUTEX_CMP_REQUEUE_PI:
    case FUTEX_UNLOCK_PI: return true;
    default: return false;
  }
}
bool Waits(int cmd) {
  switch (cmd) {
    case FUTEX_WAIT:
    case FUTEX_WAIT_BITSET:
    case FUTEX_WAIT_REQUEUE_PI:
    case FUTEX_LOCK_PI:
    case FUTEX_LOCK_PI2: return true;
    default: return false;
  }
}

// A wait's record, after the call: errno is the call's, whatever recording does.
void PutWoken(uint64_t word, uint64_t pc) {
  const int saved = errno;
  if (ThreadState* ts = SyncThread()) PutOrdered(ts, EventKind::kWait, 0, word, 0, pc);
  errno = saved;
}

}  // namespace

SyscallFn LibcSyscall() { return real_syscall.get(); }

}  // namespace seer::rt

using namespace seer::rt;
using seer::EventKind;

#pragma GCC visibility push(default)
extern "C" {

// syscall(2) takes at most six arguments after the number, and libc's own
// forwards all six whatever the call: so does this one (the x86-64 ABI passes
// five in registers and the sixth on the caller's stack, readable either way).
long syscall(long number, ...) {
  va_list ap;
  va_start(ap, number);
  long a[6];
  for (long& arg : a) arg = va_arg(ap, long);
  va_end(ap);
  const SyscallFn real = real_syscall.get();
  if (number != SYS_futex && number != SYS_futex_waitv) return real(number, a[0], a[1], a[2], a[3], a[4], a[5]);

  const uint64_t pc = SEER_RT_CALLER_PC();
  if (number == SYS_futex) {
    const uint64_t word = static_cast<uint64_t>(a[0]);
    const int cmd = static_cast<int>(a[1]) & kCmdMask;
    if (Wakes(cmd))
      if (ThreadState* ts = SyncThread()) PutOrdered(ts, EventKind::kSignal, 0, word, 0, pc);
    const long rc = real(number, a[0], a[1], a[2], a[3], a[4], a[5]);
    if (rc == 0 && Waits(cmd)) PutWoken(word, pc);
    return rc;
  }
  // futex_waitv(waiters, nr_futexes, flags, timeout, clockid): the index of the word that woke it.
  const long rc = real(number, a[0], a[1], a[2], a[3], a[4], a[5]);
  if (rc >= 0 && rc < a[1]) {
    const auto* waiters = reinterpret_cast<const struct futex_waitv*>(a[0]);
    PutWoken(waiters[rc].uaddr, pc);
  }
  return rc;
}

}  // extern "C"
#pragma GCC visibility pop
