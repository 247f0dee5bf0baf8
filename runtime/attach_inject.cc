// Attach by injection (docs/recording.md, "Attach by injection"): `seer record
// -p PID` loads libseer_rt.so into a running process with dlopen (its
// constructor creates the attach point, as in any program carrying the
// runtime), lays the rings out behind the attach page, and then calls
// __seer_rt_inject in one of the process's threads. From then on the
// process's calls to pthread, semaphore and allocation functions go through the
// runtime's interposers (got_patch.cc), which record as in a preloaded launch.
// A thread of the runtime's own waits for the detach and puts the calls back;
// it does the same if the recorder dies, so the process never depends on it.
// With --watch the runtime samples the process's threads too (watchpoints.h),
// and the detach leaves none of it behind: no timer, no perf event, no
// handler of the runtime's (WatchStop, RestoreSignalHandlers).
#include <dlfcn.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <climits>
#include <cstdint>

#include "runtime/got_patch.h"
#include "runtime/rt_state.h"
#include "runtime/watchpoints.h"

// Returns, for the recorder: the slots redirected in the low 32 bits and the
// modules holding them in the high ones; or a negative error:
// kInjectNoArea, kInjectNoThread, or kInjectProtectBase - errno.
SEER_RT_EXPORT int64_t __seer_rt_inject(uint64_t flags);

namespace seer::rt {
namespace {

// The flags of __seer_rt_inject (recorder/runtime_modes/injected_runtime.h passes the same).
constexpr uint64_t kInjectFutexStamps = 1;  // the futex tracepoints run: register each thread's counter

constexpr int64_t kInjectNoArea = -1;          // no rings requested behind the attach page, or not ours
constexpr int64_t kInjectNoThread = -2;        // the detach watcher could not be started
constexpr int64_t kInjectProtectBase = -1000;  // a module's read-only relocations could not be written

// Wakes every waiter on `word` in any process (the page is shared with the recorder).
void WakeAll(std::atomic<uint32_t>* word) {
  LibcSyscall()(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
}

// The detach watcher: sleeps on the attach state until the recorder detaches
// (it wakes us) or is found gone (checked every 100 ms), then puts every
// redirected call back. A thread that still reaches an interposer (through a
// function pointer taken while redirected) forwards, and stops writing at its
// next synchronisation call (AtSyncCall).
void* WatchForDetach(void*) {
  AttachPoint* a = g_attach_point;
  for (;;) {
    const uint32_t state = a->state.load(std::memory_order_acquire);
    if (state == kAttachDetached || RecorderGone(/*check_pid=*/true)) break;
    const timespec pause = {0, 100 * 1000 * 1000};
    LibcSyscall()(SYS_futex, reinterpret_cast<uint32_t*>(&a->state), FUTEX_WAIT, state, &pause, nullptr, 0);
  }
  // The watches first, while the program's sigaction() still reaches the
  // runtime: it cannot take SIGTRAP back from under the sampler meanwhile.
  WatchStop();
  RestoreRedirected();
  __atomic_store_n(&g_rt.sync_inproc, false, __ATOMIC_RELEASE);
  StopRecording();
  RestoreSignalHandlers();
  a->restored.store(1, std::memory_order_release);
  WakeAll(&a->restored);
  return nullptr;
}

// Started with every signal blocked, so that none of the program's signals
// lands on it; created through libc's pthread_create, not the interposer.
bool StartWatcher() {
  using CreateFn = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
  auto create = reinterpret_cast<CreateFn>(dlsym(RTLD_NEXT, "pthread_create"));
  if (create == nullptr) return false;
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&attr, 64 * 1024);
  pthread_t thread;
  const bool started = create(&thread, &attr, WatchForDetach, nullptr) == 0;
  pthread_attr_destroy(&attr);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (started) pthread_setname_np(thread, "seer-detach");
  return started;
}

}  // namespace
}  // namespace seer::rt

SEER_RT_EXPORT int64_t __seer_rt_inject(uint64_t flags) {
  using namespace seer::rt;
  if (!ActivateInjected((flags & kInjectFutexStamps) != 0)) return kInjectNoArea;
  const GotPatchResult r = RedirectToRuntime();
  // --watch: after the redirect, so that every thread either exists now (and
  // gets its timer here) or is made through the interposed pthread_create;
  // before the detach thread, which is not the program's to sample.
  if (r.error == 0) WatchStart(g_rt.shm, /*attached=*/true);
  // A forked child that is followed starts a watcher of its own (rt_state.cc, RecordForkedChild).
  g_start_detach_watcher = StartWatcher;
  if (r.error != 0 || !StartWatcher()) {
    g_start_detach_watcher = nullptr;
    WatchStop();
    RestoreRedirected();
    StopRecording();
    RestoreSignalHandlers();
    return r.error != 0 ? kInjectProtectBase - r.error : kInjectNoThread;
  }
  return static_cast<int64_t>(r.slots) | (static_cast<int64_t>(r.modules) << 32);
}
