// The dynamic annotations of ThreadSanitizer, Helgrind and DRD (Chromium's
// dynamic_annotations.h, Valgrind's helgrind.h idea, LLVM's tsan tests): a
// program with synchronisation or allocators of its own describes them, and
// seer records what they mean with the event kinds it has (docs/instrumenting.md,
// "Annotations", lists each one):
//   HappensBefore / HappensAfter(addr)   kSignal / kWait on addr
//   CondVarSignal(All) / CondVarWait     kSignal / kWait on the condition variable
//   BarrierWaitBefore / BarrierWaitAfter kBarrierArrive / kBarrierDepart
//   RWLockAcquired / RWLockReleased      a rwlock's kAcquire / kRelease (is_w: mode)
//   NewMemory(addr, size)                kAlloc: a fresh variable identity
//   BenignRace(Sized), Ignore{Reads,Writes}Begin/End  plain accesses not recorded (below)
//   IgnoreSyncBegin/End                  the thread's pthread synchronisation not recorded
// The others are accepted so that every program using them links, and ignored.
// ThreadSanitizer's own interface (<sanitizer/tsan_interface.h>, as abseil and
// folly call it for their locks) the same way:
//   __tsan_release / __tsan_acquire(addr) kSignal / kWait on addr
//   __tsan_mutex_post_lock, pre_unlock    kAcquire (kTry for a trylock) / kRelease;
//                                         a failed trylock records nothing
//   __tsan_mutex_pre_* ... post_*          the lock's own code: its plain accesses,
//                                         atomics and synchronisation are not
//                                         recorded (pre/post_divert: are)
//
// Every function is exported (the runtime is built with -fvisibility=hidden)
// and named in seer_rt.dynlist: a program built with seer-cc exports them, and
// in a preloaded runtime they come first in the lookup order, so that the weak
// no-op definitions a program or one of its libraries carries (as
// dynamic_annotations.c does) are interposed in both cases.
//
// Benign races. The simplest sound design is to leave the accesses out of the
// recording: a plain access that overlaps a benign range is not written to the
// ring, so no engine sees it, and no race, atomicity pattern or report can
// involve it, whatever the engine. That is ThreadSanitizer's rule too (a race
// whose access overlaps a benign range is not reported; AnnotateBenignRace
// covers 1 byte, so an access that touches the annotated address is enough).
// A record in the trace that the reports apply would need a new event kind
// that every engine, the store, STD export and each report learn, and the
// engines would still see the accesses as races. The cost: while a range (or a
// thread's ignore) exists, every plain access takes the slow path and a binary
// search; while none does, the fast path pays one load and a predictable branch
// (g_access_filters, docs/runtime.md). A range ends when its memory is freed or
// annotated new (a later object at that address races as any other), which
// ThreadSanitizer does not do. Atomic accesses are recorded anyway: they order
// the program, and never race with each other.
#include "runtime/annotations.h"

#include <cstddef>
#include <cstdint>

#include "runtime/alloc_events.h"
#include "runtime/rt_state.h"

namespace seer::rt {

std::atomic<uint32_t> g_access_filters{0};
__thread uint32_t tls_ignore_sync;

namespace {

SEER_RT_INLINE uint64_t Addr(const volatile void* p) { return reinterpret_cast<uint64_t>(p); }

// A thread's AnnotateIgnore{Reads,Writes}Begin not yet ended. Each open one
// also counts in g_access_filters, so the fast paths take the slow path while
// any thread ignores. Threads that share a TLS block (raw clone()) share these.
__thread uint32_t tls_ignore_reads;
__thread uint32_t tls_ignore_writes;

// The benign ranges: sorted by address, disjoint and never adjacent (an added
// range merges with those it overlaps or touches). Writers (annotations, frees)
// take `writing`; the slow path of every access reads without a lock, under a
// sequence count (`version` odd while a writer changes the table), so readers
// never wait for each other. All fields are read and written with atomic
// builtins: readers run while a writer changes the table.
// Capacity: past kMaxBenign ranges an annotation is dropped (its races are
// reported, docs/instrumenting.md).
constexpr uint32_t kMaxBenign = 4096;
struct BenignRange {
  uint64_t begin;
  uint64_t end;
};
struct BenignTable {
  std::atomic<uint32_t> version{0};
  std::atomic<bool> writing{false};
  uint32_t count = 0;
  BenignRange ranges[kMaxBenign];
};
BenignTable g_benign;

SEER_RT_INLINE uint64_t Load(const uint64_t* p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
SEER_RT_INLINE void Store(uint64_t* p, uint64_t v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }

// The index of the first range that ends after `addr` (count when none); `n`
// ranges, read by a writer or a reader alike.
uint32_t FirstEndingAfter(uint64_t addr, uint32_t n) {
  uint32_t lo = 0, hi = n;
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (Load(&g_benign.ranges[mid].end) > addr)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

// A writer's section: the lock, then an odd version while it changes the table.
// The count of filters holds one for a non-empty table.
class TableWriter {
 public:
  TableWriter() {
    while (g_benign.writing.exchange(true, std::memory_order_acquire)) __builtin_ia32_pause();
    was_empty_ = g_benign.count == 0;
    const uint32_t v = g_benign.version.load(std::memory_order_relaxed);
    g_benign.version.store(v + 1, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_release);
  }
  ~TableWriter() {
    const uint32_t v = g_benign.version.load(std::memory_order_relaxed);
    g_benign.version.store(v + 1, std::memory_order_release);
    const bool empty = g_benign.count == 0;
    if (was_empty_ && !empty) g_access_filters.fetch_add(1, std::memory_order_relaxed);
    if (!was_empty_ && empty) g_access_filters.fetch_sub(1, std::memory_order_relaxed);
    g_benign.writing.store(false, std::memory_order_release);
  }
  TableWriter(const TableWriter&) = delete;
  TableWriter& operator=(const TableWriter&) = delete;

 private:
  bool was_empty_;
};

// Replaces ranges [i, j) by `repl[0, n)`, moving the ranges after them; false
// (nothing changed) when the table would overflow. Under a TableWriter. (No
// memmove: the runtime's own is an interposer that records what it touches.)
bool Splice(uint32_t i, uint32_t j, const BenignRange* repl, uint32_t n) {
  const uint32_t count = g_benign.count;
  const uint32_t new_count = count - (j - i) + n;
  if (new_count > kMaxBenign) return false;
  BenignRange* r = g_benign.ranges;
  if (i + n > j) {
    for (uint32_t k = count; k-- > j;) {
      Store(&r[k + (i + n - j)].begin, Load(&r[k].begin));
      Store(&r[k + (i + n - j)].end, Load(&r[k].end));
    }
  } else if (i + n < j) {
    for (uint32_t k = j; k < count; ++k) {
      Store(&r[k - (j - i - n)].begin, Load(&r[k].begin));
      Store(&r[k - (j - i - n)].end, Load(&r[k].end));
    }
  }
  for (uint32_t k = 0; k < n; ++k) {
    Store(&r[i + k].begin, repl[k].begin);
    Store(&r[i + k].end, repl[k].end);
  }
  __atomic_store_n(&g_benign.count, new_count, __ATOMIC_RELAXED);
  return true;
}

void AddBenign(uint64_t addr, uint64_t size) {
  if (size == 0 || addr + size < addr) return;
  TableWriter w;
  const uint32_t count = g_benign.count;
  // Merged with every range it overlaps or touches: [i, j).
  const uint32_t i = count == 0 ? 0 : FirstEndingAfter(addr == 0 ? 0 : addr - 1, count);
  BenignRange merged = {addr, addr + size};
  uint32_t j = i;
  for (; j < count && g_benign.ranges[j].begin <= merged.end; ++j) {
    if (g_benign.ranges[j].begin < merged.begin) merged.begin = g_benign.ranges[j].begin;
    if (g_benign.ranges[j].end > merged.end) merged.end = g_benign.ranges[j].end;
  }
  Splice(i, j, &merged, 1);
}

// True when [addr, addr + size) overlaps a benign range. A reader that finds a
// writer at work tries again, a bounded number of times: a signal handler that
// interrupted a writer of its own thread would wait for ever (the access is
// then recorded).
bool InBenign(uint64_t addr, uint64_t size) {
  for (int tries = 0; tries < 1000; ++tries) {
    const uint32_t v = g_benign.version.load(std::memory_order_acquire);
    if (v & 1) {
      __builtin_ia32_pause();
      continue;
    }
    const uint32_t n = __atomic_load_n(&g_benign.count, __ATOMIC_RELAXED);
    const uint32_t i = FirstEndingAfter(addr, n < kMaxBenign ? n : kMaxBenign);
    const bool hit = i < n && Load(&g_benign.ranges[i].begin) < addr + size;
    std::atomic_thread_fence(std::memory_order_acquire);
    if (g_benign.version.load(std::memory_order_relaxed) == v) return hit;
  }
  return false;
}

SEER_RT_INLINE void Signal(const volatile void* object, uint64_t pc) {
  if (ThreadState* ts = SyncThread()) PutOrdered(ts, EventKind::kSignal, 0, Addr(object), 0, pc);
}
SEER_RT_INLINE void Wait(const volatile void* object, uint64_t pc) {
  if (ThreadState* ts = SyncThread()) PutOrdered(ts, EventKind::kWait, 0, Addr(object), 0, pc);
}
SEER_RT_INLINE uint8_t LockModeOf(long is_w) {
  return static_cast<uint8_t>(is_w != 0 ? LockMode::kExclusive : LockMode::kShared);
}

SEER_RT_INLINE void IgnoreBegin(uint32_t* depth) {
  ++*depth;
  g_access_filters.fetch_add(1, std::memory_order_relaxed);
}
SEER_RT_INLINE void IgnoreEnd(uint32_t* depth) {
  if (*depth == 0) return;  // an end without its begin
  --*depth;
  g_access_filters.fetch_sub(1, std::memory_order_relaxed);
}

// The lock code between a __tsan_mutex_pre_* and its post: reads, writes and
// synchronisation ignored, as ThreadSanitizer ignores them there. The lock's
// own atomics (the word it spins on) must not order the threads: a failed
// trylock reads the holder's exchange, and that read is no acquire of the lock
// (custom_mutex1.cpp of ThreadSanitizer's tests). The annotations' acquire and
// release are the lock's only edges.
SEER_RT_INLINE void IgnoreLockCode() {
  IgnoreBegin(&tls_ignore_reads);
  IgnoreBegin(&tls_ignore_writes);
  ++tls_ignore_sync;
}
SEER_RT_INLINE void EndIgnoringLockCode() {
  IgnoreEnd(&tls_ignore_reads);
  IgnoreEnd(&tls_ignore_writes);
  if (tls_ignore_sync != 0) --tls_ignore_sync;
}

// <sanitizer/tsan_interface.h>'s flags that change what is recorded.
constexpr unsigned kTsanMutexReadLock = 1u << 3;
constexpr unsigned kTsanMutexTryLock = 1u << 4;
constexpr unsigned kTsanMutexTryLockFailed = 1u << 5;

}  // namespace

bool IgnoringWrites() { return tls_ignore_writes != 0; }

ThreadIgnores SuspendIgnores() {
  const ThreadIgnores was{tls_ignore_reads, tls_ignore_writes, tls_ignore_sync};
  if (was.reads + was.writes != 0) g_access_filters.fetch_sub(was.reads + was.writes, std::memory_order_relaxed);
  tls_ignore_reads = tls_ignore_writes = tls_ignore_sync = 0;
  return was;
}

void RestoreIgnores(const ThreadIgnores& ignores) {
  // What the handler began and did not end is dropped with the handler.
  if (tls_ignore_reads + tls_ignore_writes != 0)
    g_access_filters.fetch_sub(tls_ignore_reads + tls_ignore_writes, std::memory_order_relaxed);
  tls_ignore_reads = ignores.reads;
  tls_ignore_writes = ignores.writes;
  tls_ignore_sync = ignores.sync;
  if (ignores.reads + ignores.writes != 0)
    g_access_filters.fetch_add(ignores.reads + ignores.writes, std::memory_order_relaxed);
}

bool FilteredAccess(uint8_t kind, uint64_t addr, uint64_t size) {
  if ((kind == K(EventKind::kRead) ? tls_ignore_reads : tls_ignore_writes) != 0) return true;
  return __atomic_load_n(&g_benign.count, __ATOMIC_RELAXED) != 0 && InBenign(addr, size);
}

void ForgetBenignRanges(uint64_t addr, uint64_t size) {
  if (size == 0 || __atomic_load_n(&g_benign.count, __ATOMIC_RELAXED) == 0) return;
  const uint64_t end = addr + size < addr ? ~0ull : addr + size;
  TableWriter w;
  const uint32_t count = g_benign.count;
  const uint32_t i = FirstEndingAfter(addr, count);
  uint32_t j = i;
  while (j < count && g_benign.ranges[j].begin < end) ++j;
  if (i == j) return;
  // What lies outside [addr, end) of the first and last ranges it overlaps stays.
  BenignRange keep[2];
  uint32_t n = 0;
  if (g_benign.ranges[i].begin < addr) keep[n++] = {g_benign.ranges[i].begin, addr};
  if (g_benign.ranges[j - 1].end > end) keep[n++] = {end, g_benign.ranges[j - 1].end};
  // A split with the table full keeps the left part only: the right part's
  // races are reported rather than lost.
  if (!Splice(i, j, keep, n)) Splice(i, j, keep, n - 1);
}

}  // namespace seer::rt

using namespace seer::rt;
using seer::EventKind;

// The annotations take the file and line of the call (unused: the pc says it).
#pragma GCC visibility push(default)
extern "C" {

// Happens-before: a release edge on addr, and the matching acquire. Every
// HappensBefore on addr is ordered before every later HappensAfter on it
// (sync_ops.h: a wait joins every signal of its object so far). The signal is
// numbered in the call (before the store that publishes, which follows it in
// the program), the wait after the load that observed it.
void AnnotateHappensBefore(const char*, int, const volatile void* addr) { Signal(addr, SEER_RT_CALLER_PC()); }
void AnnotateHappensAfter(const char*, int, const volatile void* addr) { Wait(addr, SEER_RT_CALLER_PC()); }
// WebKit's names for the same (ThreadSanitizer leaves them empty: WebKit put
// them beside atomics that it models; seer gives them the meaning they state).
void WTFAnnotateHappensBefore(const char*, int, const volatile void* addr) { Signal(addr, SEER_RT_CALLER_PC()); }
void WTFAnnotateHappensAfter(const char*, int, const volatile void* addr) { Wait(addr, SEER_RT_CALLER_PC()); }

// Condition variables of the program's own: a signal, and the wait's return.
void AnnotateCondVarSignal(const char*, int, const volatile void* cv) { Signal(cv, SEER_RT_CALLER_PC()); }
void AnnotateCondVarSignalAll(const char*, int, const volatile void* cv) { Signal(cv, SEER_RT_CALLER_PC()); }
void AnnotateCondVarWait(const char*, int, const volatile void* cv, const volatile void*) {
  Wait(cv, SEER_RT_CALLER_PC());
}

// Barriers of the program's own: every arrival before every departure.
void AnnotateBarrierInit(const char*, int, const volatile void*, long, long) {}
void AnnotateBarrierWaitBefore(const char*, int, const volatile void* barrier) {
  if (ThreadState* ts = SyncThread())
    PutOrdered(ts, EventKind::kBarrierArrive, 0, Addr(barrier), 0, SEER_RT_CALLER_PC());
}
void AnnotateBarrierWaitAfter(const char*, int, const volatile void* barrier) {
  if (ThreadState* ts = SyncThread())
    PutOrdered(ts, EventKind::kBarrierDepart, 0, Addr(barrier), 0, SEER_RT_CALLER_PC());
}
void AnnotateBarrierDestroy(const char*, int, const volatile void*) {}

// Locks of the program's own, as a rwlock's events: Acquired after the
// acquisition, Released before the release (is_w: exclusive, else shared).
// Creation and destruction record nothing, as for pthread's locks.
void AnnotateRWLockCreate(const char*, int, const volatile void*) {}
void AnnotateRWLockCreateStatic(const char*, int, const volatile void*) {}
void AnnotateRWLockDestroy(const char*, int, const volatile void*) {}
void AnnotateRWLockAcquired(const char*, int, const volatile void* lock, long is_w) {
  RecordLockAcquired(lock, LockModeOf(is_w), SEER_RT_CALLER_PC());
}
void AnnotateRWLockReleased(const char*, int, const volatile void* lock, long is_w) {
  RecordLockReleasing(lock, LockModeOf(is_w), SEER_RT_CALLER_PC());
}

// Memory a custom allocator hands out again: a fresh variable identity (a
// block allocated here, for reports), so that accesses to the new object
// neither race nor form atomicity patterns with the old object's. Unlike
// malloc's block it is not written here (ThreadSanitizer resets its shadow
// too): the allocator may declare it new in one thread for another to use.
// Its benign ranges end.
void AnnotateNewMemory(const char*, int, const volatile void* addr, long size) {
  if (size <= 0) return;
  ForgetBenignRanges(Addr(addr), static_cast<uint64_t>(size));
  RecordAlloc(const_cast<const void*>(addr), static_cast<uint64_t>(size), SEER_RT_CALLER_PC(),
              seer::AllocRegion::kDeclaredNew);
}

// Benign races: plain accesses that overlap the range are not recorded (above).
void AnnotateBenignRaceSized(const char*, int, const volatile void* addr, long size, const char*) {
  if (size > 0) AddBenign(Addr(addr), static_cast<uint64_t>(size));
}
void AnnotateBenignRace(const char*, int, const volatile void* addr, const char*) { AddBenign(Addr(addr), 1); }
void WTFAnnotateBenignRaceSized(const char*, int, const volatile void* addr, long size, const char*) {
  if (size > 0) AddBenign(Addr(addr), static_cast<uint64_t>(size));
}

// The calling thread's plain reads (writes) in between are not recorded. Nested
// pairs count. (ThreadSanitizer ignores reads and writes for either.)
void AnnotateIgnoreReadsBegin(const char*, int) { IgnoreBegin(&tls_ignore_reads); }
void AnnotateIgnoreReadsEnd(const char*, int) { IgnoreEnd(&tls_ignore_reads); }
void AnnotateIgnoreWritesBegin(const char*, int) { IgnoreBegin(&tls_ignore_writes); }
void AnnotateIgnoreWritesEnd(const char*, int) { IgnoreEnd(&tls_ignore_writes); }

// The calling thread's synchronisation in between is not recorded (SyncThread(),
// rt_state.h): its locks, unlocks, signals, waits, barriers and atomics order
// nothing (an atomic is then not recorded at all). Thread creation and joins
// still are. Nested pairs count.
void AnnotateIgnoreSyncBegin(const char*, int) { ++tls_ignore_sync; }
void AnnotateIgnoreSyncEnd(const char*, int) {
  if (tls_ignore_sync != 0) --tls_ignore_sync;  // an end without its begin
}

// Accepted and ignored (docs/instrumenting.md says why for each).
void AnnotateMutexIsUsedAsCondVar(const char*, int, const volatile void*) {}
void AnnotateMutexIsNotPHB(const char*, int, const volatile void*) {}
void AnnotatePublishMemoryRange(const char*, int, const volatile void*, long) {}
void AnnotateUnpublishMemoryRange(const char*, int, const volatile void*, long) {}
void AnnotatePCQCreate(const char*, int, const volatile void*) {}
void AnnotatePCQDestroy(const char*, int, const volatile void*) {}
void AnnotatePCQPut(const char*, int, const volatile void*) {}
void AnnotatePCQGet(const char*, int, const volatile void*) {}
void AnnotateExpectRace(const char*, int, const volatile void*, const char*) {}
void AnnotateFlushExpectedRaces(const char*, int) {}
void AnnotateTraceMemory(const char*, int, const volatile void*) {}
void AnnotateThreadName(const char*, int, const char*) {}
void AnnotateFlushState(const char*, int) {}
void AnnotateEnableRaceDetection(const char*, int, int) {}
void AnnotateNoOp(const char*, int, const volatile void*) {}
void AnnotateMemoryIsInitialized(const char*, int, const volatile void*, size_t) {}
void AnnotateMemoryIsUninitialized(const char*, int, const volatile void*, size_t) {}

// ThreadSanitizer's interface (the table at the top). Between a pre and its
// post the lock's own code runs: its plain accesses (the lock word, counters
// of its own) are not recorded, as ThreadSanitizer ignores them; a divert (a
// call out of the lock's code, to a scheduler say) records them again.
void __tsan_acquire(void* addr) { Wait(addr, SEER_RT_CALLER_PC()); }
void __tsan_release(void* addr) { Signal(addr, SEER_RT_CALLER_PC()); }
void __tsan_mutex_create(void*, unsigned) {}
void __tsan_mutex_destroy(void*, unsigned) {}
void __tsan_mutex_pre_lock(void*, unsigned) { IgnoreLockCode(); }
void __tsan_mutex_post_lock(void* addr, unsigned flags, int) {
  EndIgnoringLockCode();
  if ((flags & kTsanMutexTryLockFailed) != 0) return;
  RecordLockAcquired(addr, LockModeOf((flags & kTsanMutexReadLock) == 0), SEER_RT_CALLER_PC(),
                     (flags & kTsanMutexTryLock) != 0 ? seer::AcquireHow::kTry : seer::AcquireHow::kBlocking);
}
// Returns the recursion levels released: one, the level recorded (a recursive
// unlock of a lock held several times releases it as one level).
int __tsan_mutex_pre_unlock(void* addr, unsigned flags) {
  RecordLockReleasing(addr, LockModeOf((flags & kTsanMutexReadLock) == 0), SEER_RT_CALLER_PC());
  IgnoreLockCode();
  return 1;
}
void __tsan_mutex_post_unlock(void*, unsigned) { EndIgnoringLockCode(); }
void __tsan_mutex_pre_signal(void*, unsigned) { IgnoreLockCode(); }
void __tsan_mutex_post_signal(void*, unsigned) { EndIgnoringLockCode(); }
void __tsan_mutex_pre_divert(void*, unsigned) { EndIgnoringLockCode(); }
void __tsan_mutex_post_divert(void*, unsigned) { IgnoreLockCode(); }

// Not Valgrind, and not much slower than the program alone.
int RunningOnValgrind(void) { return 0; }
double ValgrindSlowdown(void) { return 1.0; }
// ThreadSanitizer's question whether it is a pure happens-before detector: seer
// also predicts races beyond happens-before.
const char* ThreadSanitizerQuery(const char*) { return "0"; }

}  // extern "C"
#pragma GCC visibility pop
