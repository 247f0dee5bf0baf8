// pthread and semaphore interposition: in `inproc` mode (SEER_RT_SYNC=inproc) the
// runtime records synchronisation itself, a few ns per event. Each event takes its
// number (in its lock's domain, or the global one) at the point where it takes
// effect: after acquiring, before releasing, before signalling, after the wait
// returned.
// Each use of a lock, condition variable, barrier or semaphore also reads the
// object's first byte (sync_object_access.h): after the acquire or the wait,
// before the release or the signal.
// Without inproc mode every wrapper just forwards (the eBPF recorder sees the
// calls and stamps them with the thread's record count; see SyncThread).
#include <pthread.h>
#include <semaphore.h>

#include <cerrno>

#include "runtime/alloc_events.h"
#include "runtime/fuzz_scheduler.h"
#include "runtime/mutex_order.h"
#include "runtime/real_function.h"
#include "runtime/rt_state.h"
#include "runtime/sync_object_access.h"

extern "C" void* __libc_malloc(size_t);
extern "C" void __libc_free(void*);

namespace seer::rt {
namespace {

using LockFn = int (*)(void*);
using TimedFn = int (*)(void*, const struct timespec*);
using ClockFn = int (*)(void*, clockid_t, const struct timespec*);

RealFunction<int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*)> real_create("pthread_create");
RealFunction<int (*)(pthread_t, void**)> real_join("pthread_join");
RealFunction<int (*)(pthread_t, void**)> real_tryjoin("pthread_tryjoin_np");
RealFunction<int (*)(pthread_t, void**, const struct timespec*)> real_timedjoin("pthread_timedjoin_np");
RealFunction<int (*)(pthread_t, void**, clockid_t, const struct timespec*)> real_clockjoin("pthread_clockjoin_np");
RealFunction<int (*)(pthread_t)> real_detach("pthread_detach");
RealFunction<LockFn> real_mutex_lock("pthread_mutex_lock");
RealFunction<LockFn> real_mutex_trylock("pthread_mutex_trylock");
RealFunction<TimedFn> real_mutex_timedlock("pthread_mutex_timedlock");
RealFunction<ClockFn> real_mutex_clocklock("pthread_mutex_clocklock");
RealFunction<LockFn> real_mutex_unlock("pthread_mutex_unlock");
RealFunction<LockFn> real_rdlock("pthread_rwlock_rdlock");
RealFunction<LockFn> real_tryrdlock("pthread_rwlock_tryrdlock");
RealFunction<TimedFn> real_timedrdlock("pthread_rwlock_timedrdlock");
RealFunction<ClockFn> real_clockrdlock("pthread_rwlock_clockrdlock");
RealFunction<LockFn> real_wrlock("pthread_rwlock_wrlock");
RealFunction<LockFn> real_trywrlock("pthread_rwlock_trywrlock");
RealFunction<TimedFn> real_timedwrlock("pthread_rwlock_timedwrlock");
RealFunction<ClockFn> real_clockwrlock("pthread_rwlock_clockwrlock");
RealFunction<LockFn> real_rwlock_unlock("pthread_rwlock_unlock");
RealFunction<LockFn> real_spin_lock("pthread_spin_lock");
RealFunction<LockFn> real_spin_trylock("pthread_spin_trylock");
RealFunction<LockFn> real_spin_unlock("pthread_spin_unlock");
RealFunction<LockFn> real_cond_signal("pthread_cond_signal", "GLIBC_2.3.2");
RealFunction<LockFn> real_cond_broadcast("pthread_cond_broadcast", "GLIBC_2.3.2");
RealFunction<int (*)(void*, void*)> real_cond_wait("pthread_cond_wait", "GLIBC_2.3.2");
RealFunction<int (*)(void*, void*, const struct timespec*)> real_cond_timedwait("pthread_cond_timedwait",
                                                                                "GLIBC_2.3.2");
RealFunction<LockFn> real_barrier_wait("pthread_barrier_wait");
RealFunction<int (*)(pthread_once_t*, void (*)())> real_once("pthread_once");
RealFunction<LockFn> real_sem_post("sem_post");
RealFunction<LockFn> real_sem_wait("sem_wait");
RealFunction<LockFn> real_sem_trywait("sem_trywait");
RealFunction<TimedFn> real_sem_timedwait("sem_timedwait");

SEER_RT_INLINE uint64_t Addr(const volatile void* p) { return reinterpret_cast<uint64_t>(p); }

constexpr uint8_t kExclusive = static_cast<uint8_t>(LockMode::kExclusive);
constexpr uint8_t kShared = static_cast<uint8_t>(LockMode::kShared);
// An acquire's aux: whether the call could have waited forever (event.h).
constexpr uint64_t kBlocking = static_cast<uint64_t>(AcquireHow::kBlocking);
constexpr uint64_t kTry = static_cast<uint64_t>(AcquireHow::kTry);
constexpr uint64_t kTimed = static_cast<uint64_t>(AcquireHow::kTimed);

// Only the outermost acquire/release of a recursive mutex is an event. glibc
// keeps the recursion depth in __count (0 for other kinds).
SEER_RT_INLINE bool NestedRecursive(const pthread_mutex_t* m, unsigned depth_when_outermost) {
  return (m->__data.__kind & 3) == PTHREAD_MUTEX_RECURSIVE_NP && m->__data.__count != depth_when_outermost;
}

// Hold times (the service's seer_lock_hold_seconds; only when the recorder
// asks, ShmHeader::options): when each of the locks the thread took last was
// acquired (or its cond wait returned). A release of one of them carries the
// nanoseconds it was held in its aux; 0 when not measured (not asked, the
// acquire was not recorded, or kHeldSlots later acquires pushed it out). Two
// clock reads per recorded lock pair when asked; one load and branch when not.
constexpr int kHeldSlots = 4;
struct HeldSlot {
  uint64_t lock;  // 0: free
  uint64_t since_ns;
};
__thread HeldSlot tls_held[kHeldSlots];
__thread uint32_t tls_held_next;

// After a recorded acquire of `lock`: a slot of the same lock (stale: its
// release was not recorded), else a free one, else the oldest.
SEER_RT_NOINLINE void NoteAcquiredTimed(uint64_t lock) {
  HeldSlot* slot = nullptr;
  for (HeldSlot& s : tls_held)
    if (s.lock == lock || (s.lock == 0 && slot == nullptr)) slot = &s;
  if (slot == nullptr) slot = &tls_held[tls_held_next++ % kHeldSlots];
  *slot = {lock, NowNs()};
}
SEER_RT_INLINE void NoteAcquired(uint64_t lock) {
  if (__builtin_expect(g_rt.hold_times, 0)) NoteAcquiredTimed(lock);
}

// Before a release of `lock`: how long it was held (at least 1), or 0 when
// its acquire was not noted. Frees its slot. Out of line, as NoteAcquired: the
// clock read dwarfs a call, and the wrappers stay short.
SEER_RT_NOINLINE uint64_t TakeHeldNsTimed(uint64_t lock) {
  for (HeldSlot& s : tls_held) {
    if (s.lock != lock) continue;
    s.lock = 0;
    const uint64_t held = NowNs() - s.since_ns;
    return held > 0 ? held : 1;
  }
  return 0;
}
SEER_RT_INLINE uint64_t TakeHeldNs(uint64_t lock) {
  return __builtin_expect(g_rt.hold_times, 0) ? TakeHeldNsTimed(lock) : 0;
}

// A cond wait releases its mutex: the hold ends there, unmeasured (the wait's
// begin record carries the mutex in its aux), and starts again at its return.
SEER_RT_INLINE void ForgetHeld(uint64_t lock) {
  if (__builtin_expect(!g_rt.hold_times, 1)) return;
  for (HeldSlot& s : tls_held)
    if (s.lock == lock) s.lock = 0;
}

SEER_RT_INLINE void Acquired(const volatile void* lock, uint8_t mode, uint64_t how, uint64_t pc) {
  if (ThreadState* ts = SyncThread()) {
    PutLockEvent(ts, EventKind::kAcquire, mode, Addr(lock), how, pc);
    NoteAcquired(Addr(lock));
  }
}
SEER_RT_INLINE void Releasing(const volatile void* lock, uint8_t mode, uint64_t pc) {
  if (ThreadState* ts = SyncThread())
    PutLockEvent(ts, EventKind::kRelease, mode, Addr(lock), TakeHeldNs(Addr(lock)), pc);
}

// A mutex event (`kind`: acquire, release, cond-wait begin or end), ordered in
// the mutex's own domain (mutex_order.h) while the calling thread holds it.
// `cond`: the condition variable of a cond wait, else 0; `after`: see
// CondWaitEnded; `how`: an acquire's AcquireHow, a release's hold time (ns).
// False when nothing was recorded.
SEER_RT_INLINE bool PutMutexEvent(EventKind kind, pthread_mutex_t* m, const void* cond, uint64_t pc, bool after = false,
                                  uint64_t how = kBlocking) {
  ThreadState* ts = SyncThread();
  if (ts == nullptr || !HoldsMutex(ts, m) || !Reserve(ts, kMaxLongWords, K(kind))) return false;
  const uint64_t after_word = after ? g_order[kGlobalDomain].next.load(std::memory_order_seq_cst) : 0;
  const uint64_t order = TakeMutexNumber(m);
  if (cond == nullptr)
    WriteLong(ts, K(kind), kExclusive, Addr(m), how, pc, order);
  else
    WriteLong(ts, K(kind), 0, Addr(cond), Addr(m), pc, order, after_word);
  return true;
}

// A cond wait releases the mutex: its begin is ordered in the mutex's domain
// (not the condition variable's), or the merged trace could let another thread
// acquire the mutex before this release.
SEER_RT_INLINE void CondWaitBegins(const void* c, pthread_mutex_t* m, uint64_t pc) {
  ForgetHeld(Addr(m));
  PutMutexEvent(EventKind::kCondWaitBegin, m, c, pc);
}

// The end re-acquires the mutex (its domain) and follows the signal that woke
// it (a global event numbered before the signal ran): the record carries the
// global counter as read now, so the merger places it after every global event
// taken so far. Read before taking the mutex-domain number, so that no event
// ordered after this one can be among those the read waits for.
// The room PutMutexEvent reserves covers the "after" word: it is read only once
// the room is there.
SEER_RT_INLINE void CondWaitEnded(const void* c, pthread_mutex_t* m, uint64_t pc) {
  if (PutMutexEvent(EventKind::kCondWaitEnd, m, c, pc, /*after=*/true)) NoteAcquired(Addr(m));
}

// Whether a mutex lock call that returned `rc` holds the mutex: on success, and
// on EOWNERDEAD, a robust mutex whose owner died holding it (the caller owns it
// now, and makes it consistent or not; it unlocks it either way).
SEER_RT_INLINE bool Owns(int rc) { return rc == 0 || rc == EOWNERDEAD; }

// The acquire of a mutex lock call of the given AcquireHow, in the mutex's domain.
SEER_RT_INLINE void MutexAcquire(pthread_mutex_t* m, uint64_t how, uint64_t pc) {
  if (!NestedRecursive(m, 1) && PutMutexEvent(EventKind::kAcquire, m, nullptr, pc, /*after=*/false, how))
    NoteAcquired(Addr(m));
}

// A successful mutex lock call: the use of the object, then the acquire
// (sync_object_access.h: the use is not ordered after the release it acquires).
SEER_RT_INLINE void MutexAcquired(pthread_mutex_t* m, uint64_t how, uint64_t pc) {
  SyncObjectUsed(m, pc);
  MutexAcquire(m, how, pc);
}

// A blocking lock call, contention measured: `try_lock` first, so that a free lock
// costs one call as before and no clock read; only when the lock is busy is the
// blocking `lock` timed, after a kLockRequest: should the run end while the
// thread waits (a deadlock that happened, the program killed), the trace says
// what it waited for. *waited_ns is the wait (at least 1) when the call had to
// wait, else 0. The try's other errors are the call's (a blocking lock returns the
// same ones: EINVAL, EAGAIN, EOWNERDEAD).
template <typename TryFn, typename LockFn>
SEER_RT_INLINE int LockMeasuringWait(TryFn try_lock, LockFn lock, const volatile void* object, uint8_t mode,
                                     uint64_t pc, uint64_t* waited_ns) {
  *waited_ns = 0;
  const int rc = try_lock();
  if (rc != EBUSY) return rc;
  // Numbered in the global domain: a mutex's own numbers are taken only by its holder.
  if (ThreadState* ts = SyncThread()) PutOrdered(ts, EventKind::kLockRequest, mode, Addr(object), 0, pc);
  const uint64_t start = NowNs();
  const int locked = lock();
  const uint64_t waited = NowNs() - start;
  *waited_ns = waited > 0 ? waited : 1;
  return locked;
}

// A blocking mutex lock that got `m` after waiting `waited_ns`: the use of the
// object, the wait, then the acquire, the last two in the mutex's domain and
// next to each other.
SEER_RT_INLINE void MutexAcquiredAfterWait(pthread_mutex_t* m, uint64_t waited_ns, uint64_t pc) {
  SyncObjectUsed(m, pc);
  if (waited_ns != 0) PutMutexEvent(EventKind::kLockWait, m, nullptr, pc, /*after=*/false, waited_ns);
  MutexAcquire(m, kBlocking, pc);
}

// A successful rwlock or spin lock call: the use of the object, then its acquire.
SEER_RT_INLINE void LockAcquired(const volatile void* lock, uint8_t mode, uint64_t how, uint64_t pc) {
  SyncObjectUsed(lock, pc);
  Acquired(lock, mode, how, pc);
}

// The same for a rwlock or spin lock (lock-shard domain).
SEER_RT_INLINE void AcquiredAfterWait(const volatile void* lock, uint8_t mode, uint64_t waited_ns, uint64_t pc) {
  SyncObjectUsed(lock, pc);
  if (waited_ns != 0)
    if (ThreadState* ts = SyncThread()) PutLockEvent(ts, EventKind::kLockWait, mode, Addr(lock), waited_ns, pc);
  Acquired(lock, mode, kBlocking, pc);
}

// A sem_post: the use of the semaphore, then the signal, numbered before the real call.
SEER_RT_INLINE void SemPosting(sem_t* s, uint64_t pc) {
  SyncObjectUsed(s, pc);
  if (ThreadState* ts = SyncThread()) PutOrdered(ts, EventKind::kSignal, 0, Addr(s), 0, pc);
}

// A cond signal or broadcast: the signal, numbered before the real call, then
// the use, unlike a post: glibc's pthread_cond_signal still touches the
// condition variable after the waiter it wakes can return (it wakes the futex
// after publishing the signal, which a spinning waiter sees first). So a waiter
// that destroys the variable after its wait returned races with a signal made
// outside the mutex (ThreadSanitizer's cond_race.cpp); one made under the
// mutex is ordered before that return by the mutex.
SEER_RT_INLINE void CondSignalling(pthread_cond_t* c, uint64_t pc) {
  if (ThreadState* ts = SyncThread()) PutOrdered(ts, EventKind::kSignal, 0, Addr(c), 0, pc);
  SyncObjectUsed(c, pc);
}

// A successful sem wait: the use, then the wait, numbered after the real call.
SEER_RT_INLINE void SemAcquired(sem_t* s, uint64_t pc) {
  SyncObjectUsed(s, pc);
  if (ThreadState* ts = SyncThread()) PutOrdered(ts, EventKind::kWait, 0, Addr(s), 0, pc);
}

struct StartArgs {
  void* (*fn)(void*);
  void* arg;
  int32_t ring;
  int32_t parent;
};

void* ThreadStart(void* p) {
  StartArgs args = *static_cast<StartArgs*>(p);
  __libc_free(p);
  if (args.ring >= 0 && g_rt.active)
    StartThread(static_cast<uint32_t>(args.ring), args.parent);
  else if (args.ring < 0)
    SkipThread();  // counted in no_ring_threads by its creator
  return args.fn(args.arg);
}

// The ring of the thread `th`, which must be joinable: asked before the join or
// detach, while `th` cannot name another thread (glibc reuses a pthread_t once
// its thread is joined, or detached and ended). Rings whose thread was joined
// or detached are skipped; of two left with one handle (a detach the runtime
// did not see), the later claim.
// The rings of the threads this thread created last, by pthread_t: the creator
// usually joins or detaches them, and finds them here without a scan of every
// descriptor (a cache miss each, rings being reused in any order).
constexpr uint32_t kCreatedSlots = 32;
struct CreatedSlot {
  uint64_t handle;
  int32_t ring;
};
__thread CreatedSlot tls_created[kCreatedSlots];
__thread uint32_t tls_created_next;

// Whether `d` holds a thread of handle `th`, neither joined nor detached.
bool HoldsJoinable(const RingDesc& d, pthread_t th) {
  const uint32_t state = d.state.load(std::memory_order_acquire);
  return state != kRingFree && state != kRingReturned && d.pthread_handle == static_cast<uint64_t>(th) &&
         (d.released.load(std::memory_order_acquire) & kReleaseJoined) == 0;
}

int32_t RingOfThread(pthread_t th) {
  ShmHeader* h = g_rt.shm;
  RingDesc* descs = RingDescs(h);
  // The newest creation of this handle by this thread names the live thread:
  // an older one with the same handle was joined or detached before.
  for (uint32_t k = 1; k <= kCreatedSlots; ++k) {
    const CreatedSlot& c = tls_created[(tls_created_next - k) % kCreatedSlots];
    if (c.handle == static_cast<uint64_t>(th) && c.ring >= 0 && HoldsJoinable(descs[c.ring], th)) return c.ring;
  }
  uint32_t n = h->next_ring.load(std::memory_order_acquire);
  if (n > h->max_rings) n = h->max_rings;
  int32_t found = -1;
  uint32_t found_serial = 0;
  for (uint32_t i = 0; i < n; ++i) {
    if (!HoldsJoinable(descs[i], th)) continue;
    const uint32_t serial = descs[i].serial.load(std::memory_order_relaxed);
    if (found < 0 || static_cast<int32_t>(serial - found_serial) > 0) {
      found = static_cast<int32_t>(i);
      found_serial = serial;
    }
  }
  return found;
}

// The thread of ring `ring` is joined (its join event written) or detached:
// once it has ended and its records are merged, the recorder may give its
// ring to another thread.
void ReleaseJoined(int32_t ring) { ReleaseRing(static_cast<uint32_t>(ring), kReleaseJoined); }

// pthread_once is recorded by the runtime in both modes: the eBPF probes do not
// see it (its edges reach the trace through the runtime's stream).
SEER_RT_INLINE ThreadState* OnceThread() { return g_rt.active ? RecordingThread() : nullptr; }

thread_local void (*once_routine)() = nullptr;
thread_local pthread_once_t* once_control = nullptr;

void OnceTrampoline() {
  void (*fn)() = once_routine;
  pthread_once_t* control = once_control;
  fn();
  // The initialisation happens before every return from pthread_once on this control.
  if (ThreadState* ts = OnceThread())
    PutOrdered(ts, EventKind::kSignal, 0, Addr(control), 0, reinterpret_cast<uint64_t>(fn));
}

// A join call, `join()`, on thread `th`: when it succeeds, the join event of
// the thread's ring. The ring is looked up before the call: after it, `th` may
// already name a new thread.
template <typename JoinFn>
SEER_RT_INLINE int Join(pthread_t th, JoinFn join, uint64_t pc) {
  const int32_t ring = g_rt.active ? RingOfThread(th) : -1;
  const int rc = join();
  if (rc != 0 || ring < 0 || !g_rt.active) return rc;
  // The event first, the release bit after: the ring's next thread takes its
  // fork's number after the recorder saw the bit, so this join is merged
  // before that fork and names the thread that ended (docs/runtime.md, "Ring reuse").
  // Not SyncThread(): a join ends a thread's life in the trace, ignored synchronisation or not.
  if (ThreadState* ts = ForwardSyncCall() ? nullptr : RecordingThread())
    PutOrdered(ts, EventKind::kJoin, 0, static_cast<uint64_t>(ring), 0, pc);
  ReleaseJoined(ring);
  return rc;
}

}  // namespace

__thread bool tls_in_thread_create;

// The same acquire and release for locks the program describes with annotations
// (annotations.cc): a rwlock's events, the held-lock bookkeeping included.
void RecordLockAcquired(const volatile void* lock, uint8_t mode, uint64_t pc, AcquireHow how) {
  Acquired(lock, mode, static_cast<uint64_t>(how), pc);
}
void RecordLockReleasing(const volatile void* lock, uint8_t mode, uint64_t pc) { Releasing(lock, mode, pc); }

}  // namespace seer::rt

using namespace seer::rt;
using seer::EventKind;

// The interposers must be visible outside the runtime (it is built with
// -fvisibility=hidden): that is how they replace the libc functions.
#pragma GCC visibility push(default)
extern "C" {

int pthread_create(pthread_t* th, const pthread_attr_t* attr, void* (*fn)(void*), void* arg) noexcept {
  if (FuzzOn()) return FuzzCreate(real_create.get(), th, attr, fn, arg);
  ThreadState* ts = tls_state != nullptr ? tls_state : AttachThreadAtSyncCall();
  if (ts == nullptr) return real_create.get()(th, attr, fn, arg);
  auto* args = static_cast<StartArgs*>(__libc_malloc(sizeof(StartArgs)));
  if (args == nullptr) return EAGAIN;
  // A thread created detached is never joined: its ring may go back as soon as it ends.
  int detach_state = PTHREAD_CREATE_JOINABLE;
  if (attr != nullptr) pthread_attr_getdetachstate(attr, &detach_state);
  const int32_t ring =
      ClaimRing(static_cast<int32_t>(ts->ring), detach_state == PTHREAD_CREATE_DETACHED ? kReleaseJoined : 0u);
  *args = {fn, arg, ring, static_cast<int32_t>(ts->ring)};
  // The fork is recorded before the child can run, so its number precedes the
  // child's kThreadBegin. A failed create leaves a fork of a thread with no events.
  if (ring >= 0 && g_rt.sync_inproc)
    PutOrdered(ts, EventKind::kFork, 0, static_cast<uint64_t>(ring), 0, SEER_RT_CALLER_PC());
  tls_in_thread_create = true;
  const int rc = real_create.get()(th, attr, ThreadStart, args);
  tls_in_thread_create = false;
  if (rc != 0) {
    __libc_free(args);
    return rc;
  }
  // The child may have ended already (detached, its ring free to go back):
  // the ring is not given back before this last write to its descriptor.
  if (ring >= 0) {
    RingDesc* d = &RingDescs(g_rt.shm)[ring];
    d->pthread_handle = static_cast<uint64_t>(*th);
    ReleaseRing(static_cast<uint32_t>(ring), kReleaseCreated);
    tls_created[tls_created_next++ % kCreatedSlots] = {static_cast<uint64_t>(*th), ring};
  }
  return 0;
}

int pthread_join(pthread_t th, void** ret) {
  if (FuzzOn()) return FuzzJoin(real_join.get(), th, ret);
  return Join(
      th, [th, ret] { return real_join.get()(th, ret); }, SEER_RT_CALLER_PC());
}
// The joins that may fail and leave the thread running (EBUSY, ETIMEDOUT): a
// join when they succeed, nothing when not. Under seer fuzz: fuzz_scheduler.h.
int pthread_tryjoin_np(pthread_t th, void** ret) noexcept {
  if (FuzzOn()) return FuzzTryJoin(real_tryjoin.get(), th, ret);
  return Join(
      th, [th, ret] { return real_tryjoin.get()(th, ret); }, SEER_RT_CALLER_PC());
}
int pthread_timedjoin_np(pthread_t th, void** ret, const struct timespec* t) {
  if (FuzzOn()) return FuzzJoin(real_join.get(), th, ret);
  return Join(
      th, [th, ret, t] { return real_timedjoin.get()(th, ret, t); }, SEER_RT_CALLER_PC());
}
int pthread_clockjoin_np(pthread_t th, void** ret, clockid_t clock, const struct timespec* t) {
  if (FuzzOn()) return FuzzJoin(real_join.get(), th, ret);
  return Join(
      th, [th, ret, clock, t] { return real_clockjoin.get()(th, ret, clock, t); }, SEER_RT_CALLER_PC());
}

int pthread_detach(pthread_t th) noexcept {
  const int32_t ring = g_rt.active ? RingOfThread(th) : -1;
  const int rc = real_detach.get()(th);
  if (rc == 0 && ring >= 0) ReleaseJoined(ring);
  return rc;
}

int pthread_mutex_lock(pthread_mutex_t* m) noexcept {
  if (FuzzOn()) return FuzzAcquire(real_mutex_trylock.get(), m, EBUSY);
  if (ForwardSyncCall()) return real_mutex_lock.get()(m);
  uint64_t waited = 0;
  const uint64_t pc = SEER_RT_CALLER_PC();
  const int rc = LockMeasuringWait([m] { return real_mutex_trylock.get()(m); },
                                   [m] { return real_mutex_lock.get()(m); }, m, kExclusive, pc, &waited);
  if (Owns(rc)) MutexAcquiredAfterWait(m, waited, pc);
  return rc;
}
int pthread_mutex_trylock(pthread_mutex_t* m) noexcept {
  if (FuzzOn()) FuzzYield();
  if (ForwardSyncCall()) return real_mutex_trylock.get()(m);
  const int rc = real_mutex_trylock.get()(m);
  if (Owns(rc)) MutexAcquired(m, kTry, SEER_RT_CALLER_PC());
  return rc;
}
int pthread_mutex_timedlock(pthread_mutex_t* m, const struct timespec* t) noexcept {
  if (FuzzOn()) return FuzzAcquire(real_mutex_trylock.get(), m, EBUSY);
  if (ForwardSyncCall()) return real_mutex_timedlock.get()(m, t);
  const int rc = real_mutex_timedlock.get()(m, t);
  if (Owns(rc)) MutexAcquired(m, kTimed, SEER_RT_CALLER_PC());
  return rc;
}
int pthread_mutex_clocklock(pthread_mutex_t* m, clockid_t clock, const struct timespec* t) noexcept {
  if (FuzzOn()) return FuzzAcquire(real_mutex_trylock.get(), m, EBUSY);
  if (ForwardSyncCall()) return real_mutex_clocklock.get()(m, clock, t);
  const int rc = real_mutex_clocklock.get()(m, clock, t);
  if (Owns(rc)) MutexAcquired(m, kTimed, SEER_RT_CALLER_PC());
  return rc;
}
int pthread_mutex_unlock(pthread_mutex_t* m) noexcept {
  if (FuzzOn()) return FuzzRelease(real_mutex_unlock.get(), m);
  if (ForwardSyncCall()) return real_mutex_unlock.get()(m);
  const uint64_t pc = SEER_RT_CALLER_PC();
  SyncObjectUsed(m, pc);
  if (!NestedRecursive(m, 1)) PutMutexEvent(EventKind::kRelease, m, nullptr, pc, /*after=*/false, TakeHeldNs(Addr(m)));
  return real_mutex_unlock.get()(m);
}

int pthread_rwlock_rdlock(pthread_rwlock_t* l) noexcept {
  if (FuzzOn()) return FuzzAcquire(real_tryrdlock.get(), l, EBUSY);
  if (ForwardSyncCall()) return real_rdlock.get()(l);
  uint64_t waited = 0;
  const uint64_t pc = SEER_RT_CALLER_PC();
  const int rc = LockMeasuringWait([l] { return real_tryrdlock.get()(l); }, [l] { return real_rdlock.get()(l); }, l,
                                   kShared, pc, &waited);
  if (rc == 0) AcquiredAfterWait(l, kShared, waited, pc);
  return rc;
}
int pthread_rwlock_tryrdlock(pthread_rwlock_t* l) noexcept {
  if (FuzzOn()) FuzzYield();
  if (ForwardSyncCall()) return real_tryrdlock.get()(l);
  const int rc = real_tryrdlock.get()(l);
  if (rc == 0) LockAcquired(l, kShared, kTry, SEER_RT_CALLER_PC());
  return rc;
}
int pthread_rwlock_timedrdlock(pthread_rwlock_t* l, const struct timespec* t) noexcept {
  if (FuzzOn()) return FuzzAcquire(real_tryrdlock.get(), l, EBUSY);
  if (ForwardSyncCall()) return real_timedrdlock.get()(l, t);
  const int rc = real_timedrdlock.get()(l, t);
  if (rc == 0) LockAcquired(l, kShared, kTimed, SEER_RT_CALLER_PC());
  return rc;
}
int pthread_rwlock_clockrdlock(pthread_rwlock_t* l, clockid_t clock, const struct timespec* t) noexcept {
  if (FuzzOn()) return FuzzAcquire(real_tryrdlock.get(), l, EBUSY);
  if (ForwardSyncCall()) return real_clockrdlock.get()(l, clock, t);
  const int rc = real_clockrdlock.get()(l, clock, t);
  if (rc == 0) LockAcquired(l, kShared, kTimed, SEER_RT_CALLER_PC());
  return rc;
}
int pthread_rwlock_wrlock(pthread_rwlock_t* l) noexcept {
  if (FuzzOn()) return FuzzAcquire(real_trywrlock.get(), l, EBUSY);
  if (ForwardSyncCall()) return real_wrlock.get()(l);
  uint64_t waited = 0;
  const uint64_t pc = SEER_RT_CALLER_PC();
  const int rc = LockMeasuringWait([l] { return real_trywrlock.get()(l); }, [l] { return real_wrlock.get()(l); }, l,
                                   kExclusive, pc, &waited);
  if (rc == 0) AcquiredAfterWait(l, kExclusive, waited, pc);
  return rc;
}
int pthread_rwlock_trywrlock(pthread_rwlock_t* l) noexcept {
  if (FuzzOn()) FuzzYield();
  if (ForwardSyncCall()) return real_trywrlock.get()(l);
  const int rc = real_trywrlock.get()(l);
  if (rc == 0) LockAcquired(l, kExclusive, kTry, SEER_RT_CALLER_PC());
  return rc;
}
int pthread_rwlock_timedwrlock(pthread_rwlock_t* l, const struct timespec* t) noexcept {
  if (FuzzOn()) return FuzzAcquire(real_trywrlock.get(), l, EBUSY);
  if (ForwardSyncCall()) return real_timedwrlock.get()(l, t);
  const int rc = real_timedwrlock.get()(l, t);
  if (rc == 0) LockAcquired(l, kExclusive, kTimed, SEER_RT_CALLER_PC());
  return rc;
}
int pthread_rwlock_clockwrlock(pthread_rwlock_t* l, clockid_t clock, const struct timespec* t) noexcept {
  if (FuzzOn()) return FuzzAcquire(real_trywrlock.get(), l, EBUSY);
  if (ForwardSyncCall()) return real_clockwrlock.get()(l, clock, t);
  const int rc = real_clockwrlock.get()(l, clock, t);
  if (rc == 0) LockAcquired(l, kExclusive, kTimed, SEER_RT_CALLER_PC());
  return rc;
}
int pthread_rwlock_unlock(pthread_rwlock_t* l) noexcept {
  if (FuzzOn()) return FuzzRelease(real_rwlock_unlock.get(), l);
  if (ForwardSyncCall()) return real_rwlock_unlock.get()(l);
  SyncObjectUsed(l, SEER_RT_CALLER_PC());
  if (ThreadState* ts = SyncThread()) {
    // glibc records the writer's kernel tid in the lock: that tells which mode we hold.
    const uint8_t mode = l->__data.__cur_writer == ts->os_tid ? kExclusive : kShared;
    PutLockEvent(ts, EventKind::kRelease, mode, Addr(l), TakeHeldNs(Addr(l)), SEER_RT_CALLER_PC());
  }
  return real_rwlock_unlock.get()(l);
}

int pthread_spin_lock(pthread_spinlock_t* l) noexcept {
  if (FuzzOn()) return FuzzAcquire(real_spin_trylock.get(), const_cast<int*>(l), EBUSY);
  if (ForwardSyncCall()) return real_spin_lock.get()(const_cast<int*>(l));
  uint64_t waited = 0;
  int* word = const_cast<int*>(l);
  const uint64_t pc = SEER_RT_CALLER_PC();
  const int rc = LockMeasuringWait([word] { return real_spin_trylock.get()(word); },
                                   [word] { return real_spin_lock.get()(word); }, l, kExclusive, pc, &waited);
  if (rc == 0) AcquiredAfterWait(l, kExclusive, waited, pc);
  return rc;
}
int pthread_spin_trylock(pthread_spinlock_t* l) noexcept {
  if (FuzzOn()) FuzzYield();
  if (ForwardSyncCall()) return real_spin_trylock.get()(const_cast<int*>(l));
  const int rc = real_spin_trylock.get()(const_cast<int*>(l));
  if (rc == 0) LockAcquired(l, kExclusive, kTry, SEER_RT_CALLER_PC());
  return rc;
}
int pthread_spin_unlock(pthread_spinlock_t* l) noexcept {
  if (FuzzOn()) return FuzzRelease(real_spin_unlock.get(), const_cast<int*>(l));
  if (ForwardSyncCall()) return real_spin_unlock.get()(const_cast<int*>(l));
  SyncObjectUsed(l, SEER_RT_CALLER_PC());
  Releasing(l, kExclusive, SEER_RT_CALLER_PC());
  return real_spin_unlock.get()(const_cast<int*>(l));
}

int pthread_cond_signal(pthread_cond_t* c) noexcept {
  if (FuzzOn()) return FuzzRelease(real_cond_signal.get(), c);
  if (ForwardSyncCall()) return real_cond_signal.get()(c);
  CondSignalling(c, SEER_RT_CALLER_PC());
  return real_cond_signal.get()(c);
}
int pthread_cond_broadcast(pthread_cond_t* c) noexcept {
  if (FuzzOn()) return FuzzRelease(real_cond_broadcast.get(), c);
  if (ForwardSyncCall()) return real_cond_broadcast.get()(c);
  CondSignalling(c, SEER_RT_CALLER_PC());
  return real_cond_broadcast.get()(c);
}
int pthread_cond_wait(pthread_cond_t* c, pthread_mutex_t* m) {
  if (FuzzOn()) return FuzzBlocking(real_cond_wait.get(), c, m);
  if (ForwardSyncCall()) return real_cond_wait.get()(c, m);
  const uint64_t pc = SEER_RT_CALLER_PC();
  SyncObjectUsed(c, pc);
  CondWaitBegins(c, m, pc);
  const int rc = real_cond_wait.get()(c, m);
  CondWaitEnded(c, m, pc);
  return rc;
}
int pthread_cond_timedwait(pthread_cond_t* c, pthread_mutex_t* m, const struct timespec* t) {
  if (FuzzOn()) return FuzzBlocking(real_cond_timedwait.get(), c, m, t);
  if (ForwardSyncCall()) return real_cond_timedwait.get()(c, m, t);
  const uint64_t pc = SEER_RT_CALLER_PC();
  SyncObjectUsed(c, pc);
  CondWaitBegins(c, m, pc);
  const int rc = real_cond_timedwait.get()(c, m, t);
  // Also after a timeout the mutex is held again.
  CondWaitEnded(c, m, pc);
  return rc;
}

int pthread_barrier_wait(pthread_barrier_t* b) noexcept {
  if (FuzzOn()) return FuzzBlocking(real_barrier_wait.get(), b);
  if (ForwardSyncCall()) return real_barrier_wait.get()(b);
  const uint64_t pc = SEER_RT_CALLER_PC();
  // Only the arrival uses the barrier: once every thread arrived, any of them may
  // destroy it (glibc's destroy waits for the others to leave).
  SyncObjectUsed(b, pc);
  if (ThreadState* ts = SyncThread()) PutOrdered(ts, EventKind::kBarrierArrive, 0, Addr(b), 0, pc);
  const int rc = real_barrier_wait.get()(b);
  if (ThreadState* ts = SyncThread()) PutOrdered(ts, EventKind::kBarrierDepart, 0, Addr(b), 0, pc);
  return rc;
}

int pthread_once(pthread_once_t* control, void (*init)()) {
  if (FuzzOn()) return FuzzBlocking(real_once.get(), control, init);
  if (OnceThread() == nullptr) return real_once.get()(control, init);
  void (*saved_routine)() = once_routine;
  pthread_once_t* saved_control = once_control;
  once_routine = init;
  once_control = control;
  const int rc = real_once.get()(control, OnceTrampoline);
  once_routine = saved_routine;
  once_control = saved_control;
  if (ThreadState* ts = OnceThread()) PutOrdered(ts, EventKind::kWait, 0, Addr(control), 0, SEER_RT_CALLER_PC());
  return rc;
}

int sem_post(sem_t* s) noexcept {
  if (FuzzOn()) return FuzzRelease(real_sem_post.get(), s);
  if (ForwardSyncCall()) return real_sem_post.get()(s);
  SemPosting(s, SEER_RT_CALLER_PC());
  return real_sem_post.get()(s);
}
int sem_wait(sem_t* s) {
  if (FuzzOn()) return FuzzSemWait(real_sem_trywait.get(), s);
  if (ForwardSyncCall()) return real_sem_wait.get()(s);
  const int rc = real_sem_wait.get()(s);
  if (rc == 0) SemAcquired(s, SEER_RT_CALLER_PC());
  return rc;
}
int sem_trywait(sem_t* s) noexcept {
  if (FuzzOn()) FuzzYield();
  if (ForwardSyncCall()) return real_sem_trywait.get()(s);
  const int rc = real_sem_trywait.get()(s);
  if (rc == 0) SemAcquired(s, SEER_RT_CALLER_PC());
  return rc;
}
int sem_timedwait(sem_t* s, const struct timespec* t) {
  if (FuzzOn()) return FuzzSemWait(real_sem_trywait.get(), s);
  if (ForwardSyncCall()) return real_sem_timedwait.get()(s, t);
  const int rc = real_sem_timedwait.get()(s, t);
  if (rc == 0) SemAcquired(s, SEER_RT_CALLER_PC());
  return rc;
}

}  // extern "C"
#pragma GCC visibility pop
