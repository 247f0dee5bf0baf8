// The __tsan_atomic* entry points: the hook performs the atomic operation itself
// and records it with a number of its stripe's order domain. The operation and
// the taking of the number happen under a small spinlock chosen by address, so
// the recorded order of atomics on one address is the order in which they took
// effect (a load's number follows the number of the store it read from).
#include <sched.h>
#include <unistd.h>

#include "runtime/fuzz_scheduler.h"
#include "runtime/rt_state.h"

namespace seer::rt {

__thread bool tls_in_atomic;

namespace {

struct alignas(64) Stripe {
  // Who holds the stripe (HolderToken), 0 when no one: written by the
  // exchange that takes it, so a signal handler can tell, with no window,
  // that the code it interrupted holds it.
  std::atomic<uintptr_t> holder{0};
  uint64_t next = 0;  // the stripe's order domain counter, guarded by `holder`
};
Stripe stripes[kAtomicStripes];

// A word that names the calling thread among those alive: the address of its
// TLS block, or its kernel tid where threads share a block (rt_state.h, rule
// 3; they pay a gettid() per event already). Never 0.
SEER_RT_INLINE uintptr_t HolderToken() {
  if (__builtin_expect(tls_shared, 0)) return static_cast<uintptr_t>(gettid());
  return reinterpret_cast<uintptr_t>(&tls_in_atomic);
}

// Holds the stripe of an address; Take() numbers the operation done under it.
//
// A signal handler can interrupt its thread while that thread holds the
// stripe (inside an atomic's hook); the handler's own atomic on an address of
// the same stripe would then wait for ever for a holder that cannot run. Such
// a lock is not held: the handler does its operation without the stripe
// and counts it lost (Record below), since a number of the stripe's domain
// taken then could come in the middle of the holder's `next++` and be taken
// twice. The operation itself stays atomic (the hardware's); only its place
// in the stripe's order is unknown.
class StripeLock {
 public:
  explicit StripeLock(const volatile void* addr)
      : index_(static_cast<uint32_t>((reinterpret_cast<uintptr_t>(addr) >> 4) % kAtomicStripes)), s_(stripes[index_]) {
    const uintptr_t me = HolderToken();
    for (int spins = 0;;) {
      uintptr_t seen = 0;
      if (s_.holder.compare_exchange_weak(seen, me, std::memory_order_acquire, std::memory_order_relaxed)) break;
      if (seen == me) return;  // held by the code this handler interrupted
      while (s_.holder.load(std::memory_order_relaxed) != 0) {
        if (++spins > 128)
          sched_yield();
        else
          __builtin_ia32_pause();
      }
    }
    held_ = true;
  }
  ~StripeLock() {
    if (held_) s_.holder.store(0, std::memory_order_release);
  }

  // The operation's number; kNoSeq when the lock is not held.
  uint64_t Take() { return held_ ? OrderWord(kFirstAtomicDomain + index_, s_.next++) : kNoSeq; }

 private:
  uint32_t index_;
  Stripe& s_;
  bool held_ = false;
};

}  // namespace

uint64_t TakeAtomicNumber(const volatile void* addr) {
  StripeLock lock(addr);
  return lock.Take();
}

void ResetAtomicOrderInChild() {
  // The only thread: a stripe another thread held at the fork stays held
  // otherwise, and the child's domains start afresh (RecordForkedChild).
  for (Stripe& s : stripes) {
    s.holder.store(0, std::memory_order_relaxed);
    s.next = 0;
  }
}

namespace {

// C11 memory orders as the hooks pass them; the upper bits carry flags (HLE).
SEER_RT_INLINE uint8_t Order(int mo) {
  const int m = mo & 0x7fff;
  return static_cast<uint8_t>(m <= 5 ? m : 5);
}

enum class Op { kAdd, kSub, kAnd, kOr, kXor, kNand, kExchange };

// The operations themselves, always sequentially consistent: stronger than any
// order the program asked for, which is always allowed.
template <typename T>
SEER_RT_INLINE T DoLoad(const volatile T* a) {
  if constexpr (sizeof(T) == 16) {
    return __sync_val_compare_and_swap(const_cast<volatile T*>(a), T(0), T(0));
  } else {
    return __atomic_load_n(a, __ATOMIC_SEQ_CST);
  }
}

template <typename T>
SEER_RT_INLINE bool DoCas(volatile T* a, T* expected, T desired);

template <typename T>
SEER_RT_INLINE void DoStore(volatile T* a, T v) {
  if constexpr (sizeof(T) == 16) {
    T old = DoLoad(a);
    while (!DoCas(a, &old, v)) {
    }
  } else {
    __atomic_store_n(a, v, __ATOMIC_SEQ_CST);
  }
}

template <typename T>
SEER_RT_INLINE bool DoCas(volatile T* a, T* expected, T desired) {
  if constexpr (sizeof(T) == 16) {
    const T old = __sync_val_compare_and_swap(a, *expected, desired);
    if (old == *expected) return true;
    *expected = old;
    return false;
  } else {
    return __atomic_compare_exchange_n(a, expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  }
}

template <typename T>
SEER_RT_INLINE T Apply(Op op, T old, T v) {
  switch (op) {
    case Op::kAdd: return static_cast<T>(old + v);
    case Op::kSub: return static_cast<T>(old - v);
    case Op::kAnd: return static_cast<T>(old & v);
    case Op::kOr: return static_cast<T>(old | v);
    case Op::kXor: return static_cast<T>(old ^ v);
    case Op::kNand: return static_cast<T>(~(old & v));
    case Op::kExchange: return v;
  }
  return v;
}

template <typename T>
SEER_RT_INLINE T DoRmw(volatile T* a, Op op, T v) {
  T old = DoLoad(a);
  while (!DoCas(a, &old, Apply(op, old, v))) {
  }
  return old;
}

// Records an atomic done under its stripe, or counts it lost when the stripe
// was its own thread's (StripeLock, a handler's atomic): kNoSeq.
template <typename T>
SEER_RT_INLINE void Record(ThreadState* ts, EventKind kind, uint8_t mode, const volatile T* a, uint64_t pc,
                           uint64_t seq) {
  if (__builtin_expect(seq == kNoSeq, 0))
    CountLost(ts, K(kind));
  else
    WriteLong(ts, K(kind), mode, reinterpret_cast<uint64_t>(a), sizeof(T), pc, seq);
  tls_in_atomic = false;
}

// The thread to record an atomic in, with room reserved for its record; null
// when not recording, when the thread ignores its synchronisation
// (AnnotateIgnoreSyncBegin, a __tsan_mutex_pre_* span: annotations.cc), or when
// the record is dropped (counted as lost).
SEER_RT_INLINE ThreadState* ReserveAtomic(EventKind kind, const volatile void* a, uint64_t size, uint64_t pc) {
  ThreadState* ts = __builtin_expect(tls_ignore_sync != 0, 0) ? nullptr : RecordingThread();
  if (ts == nullptr) {
    if (FuzzOn()) {
      FuzzYield();  // an atomic is a scheduling point: a spin loop lets the others run
      // ... and may be a statement of the pair (an atomic store racing with a plain read).
      FuzzAccess(reinterpret_cast<uint64_t>(a), size, kind != EventKind::kAtomicLoad, pc);
    }
    return nullptr;
  }
  if (!Reserve(ts, LongWords(/*aux: the size, never 0*/ 1, 0), K(kind))) return nullptr;
  tls_in_atomic = true;  // until Record: the operation touches the program's memory meanwhile
  return ts;
}

template <typename T>
SEER_RT_INLINE T Load(const volatile T* a, int mo, uint64_t pc) {
  ThreadState* ts = ReserveAtomic(EventKind::kAtomicLoad, a, sizeof(T), pc);
  if (ts == nullptr) return DoLoad(a);
  T v;
  uint64_t seq;
  {
    StripeLock lock(a);
    v = DoLoad(a);
    seq = lock.Take();
  }
  Record(ts, EventKind::kAtomicLoad, Order(mo), a, pc, seq);
  return v;
}

template <typename T>
SEER_RT_INLINE void Store(volatile T* a, T v, int mo, uint64_t pc) {
  ThreadState* ts = ReserveAtomic(EventKind::kAtomicStore, a, sizeof(T), pc);
  if (ts == nullptr) {
    DoStore(a, v);
    return;
  }
  uint64_t seq;
  {
    StripeLock lock(a);
    DoStore(a, v);
    seq = lock.Take();
  }
  Record(ts, EventKind::kAtomicStore, Order(mo), a, pc, seq);
}

template <typename T>
SEER_RT_INLINE T Rmw(volatile T* a, Op op, T v, int mo, uint64_t pc) {
  ThreadState* ts = ReserveAtomic(EventKind::kAtomicRmw, a, sizeof(T), pc);
  if (ts == nullptr) return DoRmw(a, op, v);
  T old;
  uint64_t seq;
  {
    StripeLock lock(a);
    old = DoRmw(a, op, v);
    seq = lock.Take();
  }
  Record(ts, EventKind::kAtomicRmw, Order(mo), a, pc, seq);
  return old;
}

// A successful exchange is a read-modify-write; a failed one only read.
template <typename T>
SEER_RT_INLINE bool Cas(volatile T* a, T* expected, T desired, int mo, int fail_mo, uint64_t pc) {
  ThreadState* ts = ReserveAtomic(EventKind::kAtomicRmw, a, sizeof(T), pc);
  if (ts == nullptr) return DoCas(a, expected, desired);
  bool ok;
  uint64_t seq;
  {
    StripeLock lock(a);
    ok = DoCas(a, expected, desired);
    seq = lock.Take();
  }
  if (ok)
    Record(ts, EventKind::kAtomicRmw, Order(mo), a, pc, seq);
  else
    Record(ts, EventKind::kAtomicLoad, Order(fail_mo), a, pc, seq);
  return ok;
}

template <typename T>
SEER_RT_INLINE T CasVal(volatile T* a, T expected, T desired, int mo, int fail_mo, uint64_t pc) {
  Cas(a, &expected, desired, mo, fail_mo, pc);
  return expected;  // the value found: equal to the old expected on success
}

}  // namespace
}  // namespace seer::rt

using namespace seer::rt;

// One set of entry points per width, as ThreadSanitizer's tsan_interface_atomic.h
// declares them. The macro only stamps out the thin shells.
#define SEER_RT_ATOMIC_ENTRY_POINTS(BITS, T)                                                                    \
  SEER_RT_EXPORT T __tsan_atomic##BITS##_load(const volatile T* a, int mo) {                                    \
    return Load(a, mo, SEER_RT_CALLER_PC());                                                                    \
  }                                                                                                             \
  SEER_RT_EXPORT void __tsan_atomic##BITS##_store(volatile T* a, T v, int mo) {                                 \
    Store(a, v, mo, SEER_RT_CALLER_PC());                                                                       \
  }                                                                                                             \
  SEER_RT_EXPORT T __tsan_atomic##BITS##_exchange(volatile T* a, T v, int mo) {                                 \
    return Rmw(a, Op::kExchange, v, mo, SEER_RT_CALLER_PC());                                                   \
  }                                                                                                             \
  SEER_RT_EXPORT T __tsan_atomic##BITS##_fetch_add(volatile T* a, T v, int mo) {                                \
    return Rmw(a, Op::kAdd, v, mo, SEER_RT_CALLER_PC());                                                        \
  }                                                                                                             \
  SEER_RT_EXPORT T __tsan_atomic##BITS##_fetch_sub(volatile T* a, T v, int mo) {                                \
    return Rmw(a, Op::kSub, v, mo, SEER_RT_CALLER_PC());                                                        \
  }                                                                                                             \
  SEER_RT_EXPORT T __tsan_atomic##BITS##_fetch_and(volatile T* a, T v, int mo) {                                \
    return Rmw(a, Op::kAnd, v, mo, SEER_RT_CALLER_PC());                                                        \
  }                                                                                                             \
  SEER_RT_EXPORT T __tsan_atomic##BITS##_fetch_or(volatile T* a, T v, int mo) {                                 \
    return Rmw(a, Op::kOr, v, mo, SEER_RT_CALLER_PC());                                                         \
  }                                                                                                             \
  SEER_RT_EXPORT T __tsan_atomic##BITS##_fetch_xor(volatile T* a, T v, int mo) {                                \
    return Rmw(a, Op::kXor, v, mo, SEER_RT_CALLER_PC());                                                        \
  }                                                                                                             \
  SEER_RT_EXPORT T __tsan_atomic##BITS##_fetch_nand(volatile T* a, T v, int mo) {                               \
    return Rmw(a, Op::kNand, v, mo, SEER_RT_CALLER_PC());                                                       \
  }                                                                                                             \
  SEER_RT_EXPORT int __tsan_atomic##BITS##_compare_exchange_strong(volatile T* a, T* c, T v, int mo, int fmo) { \
    return Cas(a, c, v, mo, fmo, SEER_RT_CALLER_PC());                                                          \
  }                                                                                                             \
  SEER_RT_EXPORT int __tsan_atomic##BITS##_compare_exchange_weak(volatile T* a, T* c, T v, int mo, int fmo) {   \
    return Cas(a, c, v, mo, fmo, SEER_RT_CALLER_PC());                                                          \
  }                                                                                                             \
  SEER_RT_EXPORT T __tsan_atomic##BITS##_compare_exchange_val(volatile T* a, T c, T v, int mo, int fmo) {       \
    return CasVal(a, c, v, mo, fmo, SEER_RT_CALLER_PC());                                                       \
  }

SEER_RT_ATOMIC_ENTRY_POINTS(8, char)
SEER_RT_ATOMIC_ENTRY_POINTS(16, short)
SEER_RT_ATOMIC_ENTRY_POINTS(32, int)
SEER_RT_ATOMIC_ENTRY_POINTS(64, long)
SEER_RT_ATOMIC_ENTRY_POINTS(128, __int128)

// A thread fence is recorded (with its order) for the analyses' C11 fence rules:
// a release fence makes the thread's later relaxed stores release, an acquire
// fence makes its earlier relaxed loads acquire (docs/analyses.md). Its order
// number says nothing across threads; the global domain only places it.
SEER_RT_EXPORT void __tsan_atomic_thread_fence(int mo) {
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  const uint8_t order = Order(mo);
  if (order == static_cast<uint8_t>(seer::MemoryOrder::kRelaxed)) return;  // orders nothing
  if (ThreadState* ts = tls_ignore_sync != 0 ? nullptr : RecordingThread())
    PutOrdered(ts, seer::EventKind::kFence, order, 0, 0, SEER_RT_CALLER_PC());
}
// A signal fence orders a thread with its own signal handler only: nothing
// between threads, so nothing to record.
SEER_RT_EXPORT void __tsan_atomic_signal_fence(int mo) {
  (void)mo;
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
}
