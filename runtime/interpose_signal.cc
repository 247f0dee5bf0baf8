// sigaction() and signal(): every handler the program installs runs behind a
// trampoline that gives it a ring of its own (rt_state.h, ground rule 2).
//
// A signal can arrive while the thread is half-way through an append (its
// cursor loaded, the record not yet stored, or room reserved and an order
// number taken): records the handler appended to the same ring would be
// written over, or the head published backwards, and the merger would find a
// domain's numbers out of order ("delivered twice"). So for the handler's
// duration the thread's state slot points at its signal ring: a second ring,
// claimed at the thread's first handler and kept until the thread ends, whose
// thread in the trace is the thread's signal handlers (its parent, in the
// thread table, is the thread they interrupted). The fast paths cost nothing
// more: they load the slot once, and the trampoline puts it back before the
// interrupted code runs on.
//
// A fault (SIGSEGV, SIGBUS, SIGFPE, SIGILL from the instruction the thread
// ran: SynchronousFault) is the exception: the thread was running its own code,
// not half-way through an append, so its handler records into the thread's
// own ring, in program order (ThreadSanitizer's context for a handler). So
// does a handler that runs while the thread waits in a blocking call
// (BlockingCall, signal_delivery.h: the interposer marks just the system
// call, with no append under way). A handler that leaves by longjmp never
// returns to the trampoline: the longjmp interposers put the state slot back
// (LeaveHandlers).
//
// A nested handler (one interrupting a handler), a handler in a thread that is
// not recording, and every handler in the eBPF modes (the probes map a thread
// to one record counter) record nothing, but a fault's, which records into the
// ring of the code it interrupted. Attached by injection, no handler is
// wrapped: those installed before the attach cannot be, and one wrapped after
// it would stay behind the trampoline once the recorder let the process go.
//
// What orders a handler with the rest of the program (what ThreadSanitizer
// gives a handler, which it runs in the interrupted thread's context; docs/
// runtime.md, ground rule 2), as kSignal/kWait events on objects above
// every user-space address:
// - sigaction() installing a handler signals the signal's object; each run of
//   the handler begins with a wait on it: what the program did before it
//   installed a handler happens before the handler;
// - the calls during which a thread runs handlers (signal_delivery.h's
//   delivery points: raise() and pthread_kill() of itself, the calls that
//   unblock or wait for signals, pause(), the timers' alarm() and setitimer(),
//   and the sleeps of interpose_sleep.cc) signal the thread's "raised" object before the call and,
//   when a handler ran, wait on its "handled" object after it; a handler
//   begins with a wait on the
//   former and ends with a signal on the latter, so the code before the call
//   happens before the handler, and the handler before the code after it;
// - after a handler recorded on the signal ring ended, the interrupted
//   thread's next ordered record (a lock, a join, an allocation, its end...)
//   is preceded by a wait on its "handled" object (WaitForHandlers): the
//   handler ended before the thread went on.
// A signal sent from elsewhere (another thread, a timer, kill) interrupts the
// thread at a point the runtime cannot place in its ring (ground rule 2).
// ThreadSanitizer defers such a handler to the thread's next interceptor, or
// runs it at once in a blocking call; here it is ordered with the thread at
// the points above, and concurrent with the thread's plain accesses between
// them (docs/recording.md says what that reports). While a handler runs, the
// thread's annotations ignore nothing (they are put back after it), as under
// ThreadSanitizer.
//
// SIGTRAP is the runtime's own while watchpoints are on (watchpoints.h): its
// handler stays installed, and the program's is kept here and called for every
// trap that is not a watchpoint's (signal_chain.h); attached, it is given back
// at the detach.
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/time.h>

#include <atomic>
#include <cerrno>
#include <cstdint>

#include "runtime/annotations.h"
#include "runtime/fuzz_scheduler.h"
#include "runtime/real_function.h"
#include "runtime/rt_state.h"
#include "runtime/signal_chain.h"
#include "runtime/signal_delivery.h"
#include "runtime/watchpoints.h"

namespace seer::rt {
namespace {

using SigactionFn = int (*)(int, const struct sigaction*, struct sigaction*);
RealFunction<SigactionFn> real_sigaction("sigaction");
using RaiseFn = int (*)(int);
RealFunction<RaiseFn> real_raise("raise");
using PthreadKillFn = int (*)(pthread_t, int);
RealFunction<PthreadKillFn> real_pthread_kill("pthread_kill");
using SigmaskFn = int (*)(int, const sigset_t*, sigset_t*);
RealFunction<SigmaskFn> real_sigprocmask("sigprocmask");
RealFunction<SigmaskFn> real_pthread_sigmask("pthread_sigmask");
RealFunction<int (*)(const sigset_t*)> real_sigsuspend("sigsuspend");
RealFunction<int (*)(const sigset_t*, int*)> real_sigwait("sigwait");
RealFunction<int (*)(const sigset_t*, siginfo_t*)> real_sigwaitinfo("sigwaitinfo");
RealFunction<int (*)(const sigset_t*, siginfo_t*, const struct timespec*)> real_sigtimedwait("sigtimedwait");
RealFunction<int (*)()> real_pause("pause");
RealFunction<unsigned (*)(unsigned)> real_alarm("alarm");
RealFunction<int (*)(__itimer_which_t, const struct itimerval*, struct itimerval*)> real_setitimer("setitimer");
using LongjmpFn = void (*)(struct __jmp_buf_tag*, int);
RealFunction<LongjmpFn> real_longjmp("longjmp");
RealFunction<LongjmpFn> real__longjmp("_longjmp");
RealFunction<LongjmpFn> real_siglongjmp("siglongjmp");
RealFunction<LongjmpFn> real_longjmp_chk("__longjmp_chk");

// The synchronisation objects of signals (the note at the top), beside the
// file descriptors' (0xfe0000000000, interpose_fd.cc).
constexpr uint64_t kSignalSyncBase = 0xfc0000000000;
uint64_t InstalledObject(int sig) { return kSignalSyncBase + static_cast<uint64_t>(sig); }
// Per thread, by the ring of the thread the handler interrupts (a ring is
// reused only after its thread ended).
uint64_t RaisedObject(uint32_t ring) { return kSignalSyncBase + 0x100 + 2 * uint64_t{ring}; }
uint64_t HandledObject(uint32_t ring) { return RaisedObject(ring) + 1; }

// The program's handler of each signal, as it gave it.
struct Handler {
  std::atomic<void*> fn{nullptr};
  std::atomic<bool> siginfo{false};  // installed with SA_SIGINFO
};
Handler handlers[NSIG];

// Set once the runtime's SIGTRAP handler is installed: the program's sigaction()
// for SIGTRAP only records its handler from then on, in `program_sigtrap` too
// (the disposition a detach gives back). SigtrapLock orders the program's
// sigaction(SIGTRAP) with the runtime's install and uninstall: none is lost
// or left behind the other.
std::atomic<bool> runtime_sigtrap{false};
struct sigaction program_sigtrap = {};
std::atomic<bool> sigtrap_locked{false};

// Held with every signal blocked: sigaction() is async-signal-safe, and a
// handler's call must not spin on a lock the thread it interrupted holds.
class SigtrapLock {
 public:
  SigtrapLock() {
    sigset_t all;
    sigfillset(&all);
    real_pthread_sigmask.get()(SIG_BLOCK, &all, &saved_);
    while (sigtrap_locked.exchange(true, std::memory_order_acquire)) {
    }
  }
  ~SigtrapLock() {
    sigtrap_locked.store(false, std::memory_order_release);
    real_pthread_sigmask.get()(SIG_SETMASK, &saved_, nullptr);
  }
  SigtrapLock(const SigtrapLock&) = delete;
  SigtrapLock& operator=(const SigtrapLock&) = delete;

 private:
  sigset_t saved_;
};

// The ring of the calling thread's handlers (`vars`, interrupting `outer`):
// claimed and begun at its first handler. Null when it can have none.
ThreadState* SignalRing(ThreadVars* vars, const ThreadState* outer) {
  if (vars->signal_state != nullptr) return vars->signal_state;
  if (vars->no_signal_ring || !__atomic_load_n(&g_rt.active, __ATOMIC_ACQUIRE)) return nullptr;
  // No pthread_join will name it, and nobody else writes to its descriptor.
  const int32_t ring = ClaimRing(static_cast<int32_t>(outer->ring), kReleaseCreated | kReleaseJoined);
  if (ring < 0) {
    vars->no_signal_ring = true;  // counted in no_ring_threads once, not at every signal
    return nullptr;
  }
  // Its locks are the interrupted thread's to glibc: the same owner id.
  vars->signal_state = StartBareThread(static_cast<uint32_t>(ring), outer->os_tid, /*register_counter=*/false,
                                       reinterpret_cast<uint64_t>(__builtin_return_address(0)));
  return vars->signal_state;
}

// Points the calling thread's state slot at its signal ring for the
// lifetime of the object, and back (a handler that leaves by longjmp: the
// longjmp interposers below). `frame`: the trampoline's frame address.
class HandlerScope {
 public:
  // `in_thread`: the signal is a fault of the instruction the thread was
  // running (SynchronousFault): the handler records into the thread's own
  // ring, as it does when the thread is in a blocking call (BlockingCall).
  HandlerScope(const void* frame, bool in_thread) {
    const int saved_errno = errno;
    ignores_ = SuspendIgnores();
    in_atomic_ = tls_in_atomic;  // the handler's own atomics clear it
    slot_ = CurrentSlot();
    if (slot_.state != nullptr) {
      outer_ = *slot_.state;
      outer_attaching_ = slot_.vars->attaching;
      const uint32_t depth = ++slot_.vars->signal_depth;
      if (depth <= ThreadVars::kHandlerFrames)
        slot_.vars->handler_frames[depth - 1] = {outer_, outer_attaching_, reinterpret_cast<uint64_t>(frame), ignores_};
      ThreadState* inner = nullptr;
      if (outer_ != nullptr && !outer_attaching_ && g_rt.sync_inproc) {
        if (in_thread || (depth == 1 && outer_->in_blocking_call))
          inner = outer_;
        else if (depth == 1)
          inner = SignalRing(slot_.vars, outer_);
      }
      in_thread_ = inner != nullptr && inner == outer_;
      *slot_.state = inner;
      // No state: the handler's hooks must not claim a ring as if the thread
      // were new (it may be half-way through starting).
      slot_.vars->attaching = inner == nullptr;
      std::atomic_signal_fence(std::memory_order_seq_cst);
    }
    errno = saved_errno;
  }
  ~HandlerScope() {
    if (slot_.state != nullptr) {
      std::atomic_signal_fence(std::memory_order_seq_cst);
      *slot_.state = outer_;
      slot_.vars->attaching = outer_attaching_;
      --slot_.vars->signal_depth;
    }
    RestoreIgnores(ignores_);
    tls_in_atomic = in_atomic_;
  }
  HandlerScope(const HandlerScope&) = delete;
  HandlerScope& operator=(const HandlerScope&) = delete;

  // The interrupted thread's state, or null when the handler records nothing.
  const ThreadState* interrupted() const {
    return slot_.state != nullptr && *slot_.state != nullptr ? outer_ : nullptr;
  }
  // The handler records into the interrupted thread's ring.
  bool in_thread() const { return in_thread_; }
  // The handler, recorded on the signal ring, ended: the interrupted thread
  // waits for it at its next ordered record (WaitForHandlers).
  void HandlerRecorded() {
    std::atomic_signal_fence(std::memory_order_seq_cst);
    outer_->handlers_ran = true;
  }

 private:
  ThreadSlot slot_;
  ThreadIgnores ignores_ = {};
  bool in_atomic_ = false;
  ThreadState* outer_ = nullptr;
  bool outer_attaching_ = false;
  bool in_thread_ = false;
};

// A fault of the instruction the thread was running (a bad access, a
// division by zero, an illegal instruction: the kernel's si_code, not a
// kill() or a timer's), in the program's code: no append of the runtime can
// be half-way there, so the handler may record into the thread's own ring,
// in program order, as ThreadSanitizer runs such "synchronous" signals in
// the thread's context at once. The one runtime path that touches the
// program's memory with room reserved, an atomic hook, says so (tls_in_atomic:
// its record would then be written past the handler's, into room it never
// reserved). SIGTRAP is left out: with watchpoints on it is the runtime's.
bool SynchronousFault(int sig, const siginfo_t* info) {
  if (info == nullptr || info->si_code <= 0 || tls_in_atomic) return false;
  return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL;
}

void Trampoline(int sig, siginfo_t* info, void* context) {
  void* fn = handlers[sig].fn.load(std::memory_order_acquire);
  const bool siginfo = handlers[sig].siginfo.load(std::memory_order_relaxed);
  // Reset to SIG_DFL or SIG_IGN meanwhile (a one-shot handler): nothing to run.
  if (fn == reinterpret_cast<void*>(SIG_DFL) || fn == reinterpret_cast<void*>(SIG_IGN)) return;
  HandlerScope scope(__builtin_frame_address(0), SynchronousFault(sig, info));
  // Under seer fuzz, the handler is part of the interrupted thread's step (fuzz_scheduler.h).
  const bool fuzz_outer = FuzzOn() && FuzzHandlerBegin();
  const auto pc = reinterpret_cast<uint64_t>(fn);
  const ThreadState* interrupted = scope.interrupted();
  // The signal ring; or, in the thread's own ring, program order says the rest.
  ThreadState* ts = interrupted != nullptr ? SyncThread() : nullptr;
  if (ts != nullptr) PutOrdered(ts, EventKind::kWait, 0, InstalledObject(sig), 0, pc);
  if (scope.in_thread()) ts = nullptr;
  if (ts != nullptr) PutOrdered(ts, EventKind::kWait, 0, RaisedObject(interrupted->ring), 0, pc);
  if (siginfo)
    reinterpret_cast<void (*)(int, siginfo_t*, void*)>(fn)(sig, info, context);
  else
    reinterpret_cast<void (*)(int)>(fn)(sig);
  // Not reached when the handler leaves by longjmp: LeaveHandlers below then
  // orders it before the code the jump lands in.
  if (ts != nullptr) {
    PutOrdered(ts, EventKind::kSignal, 0, HandledObject(interrupted->ring), 0, pc);
    scope.HandlerRecorded();
  }
  if (FuzzOn()) FuzzHandlerEnd(fuzz_outer);
}

// Set once the program installed a handler (the runtime's own for fatal
// signals, rt_state.cc, is not one): before that, no handler of the
// program's can run at a delivery point (signal_delivery.h).
std::atomic<bool> handler_installed{false};

// The thread whose delivery points are recorded: whatever its annotations
// ignore, since a handler is part of the thread it interrupts (the note at the
// top). Attached, no handler runs behind the trampoline.
ThreadState* DeliveryThread() {
  if (!handler_installed.load(std::memory_order_relaxed) || g_rt.injected || ForwardSyncCall()) return nullptr;
  return RecordingThread();
}

bool IsHandler(void* fn) {
  return fn != reinterpret_cast<void*>(SIG_DFL) && fn != reinterpret_cast<void*>(SIG_IGN) &&
         fn != reinterpret_cast<void*>(SIG_ERR);
}

// What the program gave before, in place of the trampoline the kernel holds.
void ShowProgramHandler(struct sigaction* old, void* fn, bool siginfo) {
  if (old->sa_sigaction != Trampoline) return;
  if (siginfo) {
    old->sa_sigaction = reinterpret_cast<void (*)(int, siginfo_t*, void*)>(fn);
  } else {
    old->sa_handler = reinterpret_cast<void (*)(int)>(fn);
    old->sa_flags &= ~SA_SIGINFO;
  }
}

// The runtime's SIGTRAP handler: a watchpoint's trap, else what the program asked.
void RuntimeSigtrap(int sig, siginfo_t* info, void* context) {
  if (WatchTrap(sig, info, context)) return;
  void* fn = handlers[sig].fn.load(std::memory_order_acquire);
  if (fn == reinterpret_cast<void*>(SIG_IGN)) return;
  if (fn == nullptr || fn == reinterpret_cast<void*>(SIG_DFL)) {
    // The default action (a core dump), as without the runtime: SIGTRAP is
    // blocked in this handler, so the raised one comes when it returns.
    struct sigaction dfl = {};
    dfl.sa_handler = SIG_DFL;
    real_sigaction.get()(sig, &dfl, nullptr);
    runtime_sigtrap.store(false, std::memory_order_release);
    RaiseUnrecorded(sig);
    return;
  }
  Trampoline(sig, info, context);
}

}  // namespace

bool InstallRuntimeSigtrap() {
  SigtrapLock lock;
  // Once: the hardware watchpoints and the access sampler both ask, and a
  // second install would keep the runtime's own handler as the program's.
  if (runtime_sigtrap.load(std::memory_order_acquire)) return true;
  struct sigaction mine = {};
  mine.sa_sigaction = RuntimeSigtrap;
  mine.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&mine.sa_mask);
  struct sigaction old = {};
  if (real_sigaction.get()(SIGTRAP, &mine, &old) != 0) return false;
  program_sigtrap = old;
  // A handler installed before the runtime (it is loaded first, so rarely).
  void* fn = (old.sa_flags & SA_SIGINFO) != 0 ? reinterpret_cast<void*>(old.sa_sigaction)
                                              : reinterpret_cast<void*>(old.sa_handler);
  if (IsHandler(fn)) {
    handlers[SIGTRAP].siginfo.store((old.sa_flags & SA_SIGINFO) != 0, std::memory_order_relaxed);
    handlers[SIGTRAP].fn.store(fn, std::memory_order_release);
  }
  runtime_sigtrap.store(true, std::memory_order_release);
  return true;
}

int RaiseUnrecorded(int sig) { return real_raise.get()(sig); }

bool UninstallRuntimeSigtrap() {
  SigtrapLock lock;
  if (!runtime_sigtrap.load(std::memory_order_acquire)) return true;
  if (real_sigaction.get()(SIGTRAP, &program_sigtrap, nullptr) != 0) return false;
  runtime_sigtrap.store(false, std::memory_order_release);
  return true;
}

namespace {

// The program's sigaction() of a launched process: its handler runs behind the trampoline.
int ProgramAction(SigactionFn real, int sig, const struct sigaction* act, struct sigaction* old) {
  Handler& h = handlers[sig];
  void* const old_fn = h.fn.load(std::memory_order_relaxed);
  const bool old_siginfo = h.siginfo.load(std::memory_order_relaxed);
  int rc;
  if (act == nullptr) {
    rc = real(sig, act, old);
  } else {
    void* fn = (act->sa_flags & SA_SIGINFO) != 0 ? reinterpret_cast<void*>(act->sa_sigaction)
                                                 : reinterpret_cast<void*>(act->sa_handler);
    if (!IsHandler(fn)) {
      h.fn.store(fn, std::memory_order_release);
      rc = real(sig, act, old);
    } else {
      // What came before happens before the handler: numbered before the
      // kernel has it (a handler's wait that comes first follows nothing).
      if (sig != SIGKILL && sig != SIGSTOP) {
        if (ThreadState* ts = SyncThread())
          PutOrdered(ts, EventKind::kSignal, 0, InstalledObject(sig), 0,
                     reinterpret_cast<uint64_t>(__builtin_return_address(0)));
      }
      if (!IsRuntimeSignalHandler(fn)) handler_installed.store(true, std::memory_order_relaxed);
      // The handler first: the trampoline may run as soon as the kernel has it.
      h.siginfo.store((act->sa_flags & SA_SIGINFO) != 0, std::memory_order_relaxed);
      h.fn.store(fn, std::memory_order_release);
      struct sigaction mine = *act;
      mine.sa_sigaction = Trampoline;
      mine.sa_flags |= SA_SIGINFO;
      rc = real(sig, &mine, old);
    }
    if (rc != 0) {
      h.siginfo.store(old_siginfo, std::memory_order_relaxed);
      h.fn.store(old_fn, std::memory_order_release);
    }
  }
  if (rc == 0 && old != nullptr) ShowProgramHandler(old, old_fn, old_siginfo);
  return rc;
}

// The program's sigaction(SIGTRAP), under SigtrapLock.
int SigtrapAction(SigactionFn real, const struct sigaction* act, struct sigaction* old) {
  if (!runtime_sigtrap.load(std::memory_order_acquire))
    return g_rt.injected ? real(SIGTRAP, act, old) : ProgramAction(real, SIGTRAP, act, old);
  // The runtime keeps its handler: the program's is what it runs for the
  // traps that are not the watchpoints', and what a detach gives back.
  Handler& h = handlers[SIGTRAP];
  void* const old_fn = h.fn.load(std::memory_order_relaxed);
  const bool old_siginfo = h.siginfo.load(std::memory_order_relaxed);
  if (act != nullptr) {
    void* fn = (act->sa_flags & SA_SIGINFO) != 0 ? reinterpret_cast<void*>(act->sa_sigaction)
                                                 : reinterpret_cast<void*>(act->sa_handler);
    h.siginfo.store((act->sa_flags & SA_SIGINFO) != 0, std::memory_order_relaxed);
    h.fn.store(fn, std::memory_order_release);
    program_sigtrap = *act;
  }
  if (old != nullptr) {
    *old = {};
    if (old_siginfo) {
      old->sa_sigaction = reinterpret_cast<void (*)(int, siginfo_t*, void*)>(old_fn);
      old->sa_flags = SA_SIGINFO;
    } else {
      old->sa_handler = old_fn != nullptr ? reinterpret_cast<void (*)(int)>(old_fn) : SIG_DFL;
    }
  }
  return 0;
}

// The stack pointer a jmp_buf holds: glibc stores it mangled (PTR_MANGLE:
// xor with the thread's pointer guard at %fs:0x30, then rotated left by 17),
// as ThreadSanitizer reads it too. 0 where that is not known.
uint64_t JumpTargetSp(const struct __jmp_buf_tag* env) {
#if defined(__x86_64__)
  uint64_t guard;
  asm("mov %%fs:0x30, %0" : "=r"(guard));
  const auto mangled = static_cast<uint64_t>(env->__jmpbuf[6]);  // JB_RSP
  return ((mangled >> 17) | (mangled << 47)) ^ guard;
#else
  (void)env;
  return 0;
#endif
}

// A longjmp to stack pointer `target` leaves every running handler whose
// trampoline frame lies below it (deeper in the stack), or that runs on the
// alternate signal stack when the target is off it. The trampoline never
// returns for those: the state slot goes back to what each found, and, as a
// handler that returns does, the handler's last event (its "handled" signal)
// orders it before the code the jump lands in. That code is the program's
// (a sigsetjmp, a setjmp), so writing to the thread's ring there is safe: an
// append the signal interrupted is abandoned by the jump (its room reused,
// an order number it took counted as a gap by the merger).
void LeaveHandlers(uint64_t target) {
  if (target == 0) return;
  const ThreadSlot slot = CurrentSlot();
  if (slot.state == nullptr || slot.vars->signal_depth == 0) return;
  ThreadVars* v = slot.vars;
  const int saved_errno = errno;
  stack_t alt = {};
  const bool on_alt = sigaltstack(nullptr, &alt) == 0 && (alt.ss_flags & SS_ONSTACK) != 0;
  const auto on_alt_stack = [&](uint64_t sp) {
    const auto lo = reinterpret_cast<uint64_t>(alt.ss_sp);
    return on_alt && sp >= lo && sp < lo + alt.ss_size;
  };
  while (v->signal_depth > 0 && v->signal_depth <= ThreadVars::kHandlerFrames) {
    const ThreadVars::HandlerFrame& f = v->handler_frames[v->signal_depth - 1];
    const bool frame_alt = on_alt_stack(f.frame), target_alt = on_alt_stack(target);
    const bool leaves = frame_alt != target_alt ? frame_alt : target > f.frame;
    if (!leaves) break;
    ThreadState* handler_ring = *slot.state;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    *slot.state = f.outer;
    v->attaching = f.outer_attaching;
    --v->signal_depth;
    // The jump lands in the program's code, never inside a system call: a
    // blocking call the outermost handler interrupted is over.
    if (v->signal_depth == 0 && f.outer != nullptr) f.outer->in_blocking_call = false;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    RestoreIgnores(f.ignores);
    // The handler recorded (the outermost, into the signal ring): its end
    // before what follows the landing, as HandlerScope's trampoline would.
    if (v->signal_depth == 0 && handler_ring != nullptr && f.outer != nullptr && handler_ring != f.outer) {
      const auto pc = reinterpret_cast<uint64_t>(__builtin_return_address(0));
      PutOrdered(handler_ring, EventKind::kSignal, 0, HandledObject(f.outer->ring), 0, pc);
      PutOrdered(f.outer, EventKind::kWait, 0, HandledObject(f.outer->ring), 0, pc);
    }
  }
  errno = saved_errno;
}

// Leaves the handlers the jump leaves, then jumps with glibc's `real`.
[[noreturn]] void JumpLeavingHandlers(RealFunction<LongjmpFn>& real, struct __jmp_buf_tag* env, int value) {
  LeaveHandlers(JumpTargetSp(env));
  real.get()(env, value);
  __builtin_unreachable();
}

}  // namespace

DeliveryPoint::DeliveryPoint(uint64_t pc) : pc_(pc) {
  ThreadState* ts = DeliveryThread();
  if (ts == nullptr) return;
  ring_ = ts->ring;
  PutOrdered(ts, EventKind::kSignal, 0, RaisedObject(ts->ring), 0, pc);
}

DeliveryPoint::~DeliveryPoint() {
  if (ring_ < 0) return;
  const int saved_errno = errno;  // the call's
  ThreadState* ts = DeliveryThread();
  if (ts != nullptr && ts->handlers_ran) WaitForHandlers(ts, pc_);
  errno = saved_errno;
}

void WaitForHandlers(ThreadState* ts, uint64_t pc) {
  ts->handlers_ran = false;  // first: PutOrdered below looks at it again
  std::atomic_signal_fence(std::memory_order_seq_cst);
  PutOrdered(ts, EventKind::kWait, 0, HandledObject(ts->ring), 0, pc);
}

}  // namespace seer::rt

using namespace seer::rt;

#pragma GCC visibility push(default)
extern "C" {

int sigaction(int sig, const struct sigaction* act, struct sigaction* old) noexcept {
  const SigactionFn real = real_sigaction.get();
  if (sig <= 0 || sig >= NSIG) return real(sig, act, old);
  // SIGTRAP's calls one at a time with the runtime's install and uninstall.
  if (sig == SIGTRAP) {
    SigtrapLock lock;
    return SigtrapAction(real, act, old);
  }
  // Attached by injection: nothing is wrapped (the note at the top).
  if (g_rt.injected) return real(sig, act, old);
  return ProgramAction(real, sig, act, old);
}

int raise(int sig) noexcept {
  DeliveryPoint point(SEER_RT_CALLER_PC());
  return real_raise.get()(sig);
}

int pthread_kill(pthread_t thread, int sig) noexcept {
  // Signal 0 only checks the thread exists; another thread's handler runs
  // whenever that thread is interrupted (the note at the top).
  if (sig == 0 || !pthread_equal(thread, pthread_self())) return real_pthread_kill.get()(thread, sig);
  DeliveryPoint point(SEER_RT_CALLER_PC());
  return real_pthread_kill.get()(thread, sig);
}

// The calls that unblock signals, wait for them, or have the kernel send one
// later (a timer), as delivery points.
int sigprocmask(int how, const sigset_t* set, sigset_t* old) noexcept {
  DeliveryPoint point(SEER_RT_CALLER_PC());
  return real_sigprocmask.get()(how, set, old);
}
int pthread_sigmask(int how, const sigset_t* set, sigset_t* old) noexcept {
  DeliveryPoint point(SEER_RT_CALLER_PC());
  return real_pthread_sigmask.get()(how, set, old);
}
int sigsuspend(const sigset_t* mask) {
  DeliveryPoint point(SEER_RT_CALLER_PC());
  return real_sigsuspend.get()(mask);
}
int sigwait(const sigset_t* set, int* sig) {
  DeliveryPoint point(SEER_RT_CALLER_PC());
  return real_sigwait.get()(set, sig);
}
int sigwaitinfo(const sigset_t* set, siginfo_t* info) {
  DeliveryPoint point(SEER_RT_CALLER_PC());
  return real_sigwaitinfo.get()(set, info);
}
int sigtimedwait(const sigset_t* set, siginfo_t* info, const struct timespec* timeout) {
  DeliveryPoint point(SEER_RT_CALLER_PC());
  return real_sigtimedwait.get()(set, info, timeout);
}
int pause() {
  DeliveryPoint point(SEER_RT_CALLER_PC());
  return real_pause.get()();
}
unsigned alarm(unsigned seconds) noexcept {
  DeliveryPoint point(SEER_RT_CALLER_PC());
  return real_alarm.get()(seconds);
}
int setitimer(__itimer_which_t which, const struct itimerval* value, struct itimerval* old) noexcept {
  DeliveryPoint point(SEER_RT_CALLER_PC());
  return real_setitimer.get()(which, value, old);
}

// longjmp and its kin, for a handler that leaves by one (LeaveHandlers):
// glibc's longjmp, _longjmp and siglongjmp are one function, __longjmp_chk
// its _FORTIFY_SOURCE twin.
void longjmp(struct __jmp_buf_tag env[1], int value) noexcept { JumpLeavingHandlers(real_longjmp, env, value); }
void _longjmp(struct __jmp_buf_tag env[1], int value) noexcept { JumpLeavingHandlers(real__longjmp, env, value); }
void siglongjmp(struct __jmp_buf_tag env[1], int value) noexcept { JumpLeavingHandlers(real_siglongjmp, env, value); }
void __longjmp_chk(struct __jmp_buf_tag env[1], int value) { JumpLeavingHandlers(real_longjmp_chk, env, value); }

// glibc's signal() calls its own sigaction, not this one: BSD semantics
// (SA_RESTART, the signal blocked in its handler) through the interposer.
sighandler_t signal(int sig, sighandler_t handler) noexcept {
  struct sigaction act = {};
  act.sa_handler = handler;
  sigemptyset(&act.sa_mask);
  if (sig > 0 && sig < NSIG) sigaddset(&act.sa_mask, sig);
  act.sa_flags = SA_RESTART;
  struct sigaction old = {};
  if (sigaction(sig, &act, &old) != 0) return SIG_ERR;
  return old.sa_handler;
}

}  // extern "C"
#pragma GCC visibility pop
