// Where a mutex's events (acquire, release, cond-wait begin and end) take
// their order numbers. A mutex of the common kinds keeps its own counter in
// the 16 bytes of glibc's pthread_mutex_t that only robust mutexes use
// (__data.__list): the number is taken while the mutex is held, so a plain
// increment is exact, and the counter sits on the mutex's own cache line,
// which the handoff of the mutex moves between cores anyway. A counter of a
// lock shard (rt_state.h, TakeNumber) costs a locked add on a second line that
// moves too: with it, the recorded benchmark's target spent 12-20% more CPU
// time (bench/runtime/README.md, seventh wave).
#pragma once

#include <pthread.h>

#include <atomic>
#include <cstdint>

#include "runtime/rt_state.h"

namespace seer::rt {

// Overlays __data.__list. `tag` names the instance: the mutex's own address in
// the low 48 bits (a zeroed, re-initialised or copied mutex does not match it)
// and its domain in the high 16, 0 when it uses its lock shard. `next` is the
// number its next event takes.
struct MutexOrder {
  uint64_t tag;
  uint64_t next;
};
static_assert(sizeof(pthread_mutex_t::__data.__list) == sizeof(MutexOrder), "glibc's x86-64 pthread_mutex_t");

// glibc's __kind bits under which __list is in use or the counter would not be
// private to the holder: robust (16), priority inheritance (32) and protection
// (64), process-shared (128), elision (256). A destroyed mutex (-1) has them all.
inline constexpr int kMutexKindsOnShards = 16 | 32 | 64 | 128 | 256;

// The next mutex domain to hand out, counted from kFirstMutexDomain (rt_state.cc).
extern std::atomic<uint32_t> g_mutex_domains;

// The first event of a mutex instance: gives it a domain, or its shard once
// they are all taken. Out of line: once per instance.
SEER_RT_NOINLINE void StartMutexOrder(MutexOrder* o, uint64_t addr);

// The order word of an event of mutex `m`, which the calling thread holds.
SEER_RT_INLINE uint64_t TakeMutexNumber(pthread_mutex_t* m) {
  const uint64_t addr = reinterpret_cast<uint64_t>(m);
  if (__builtin_expect((m->__data.__kind & kMutexKindsOnShards) != 0, 0)) return TakeNumber(LockDomain(addr));
  auto* o = reinterpret_cast<MutexOrder*>(&m->__data.__list);
  if (__builtin_expect((o->tag & kObjectMask) != (addr & kObjectMask), 0)) StartMutexOrder(o, addr);
  const uint32_t domain = OrderDomain(o->tag);
  if (__builtin_expect(domain == 0, 0)) return TakeNumber(LockDomain(addr));
  const uint64_t n = o->next;
  o->next = n + 1;
  return OrderWord(domain, n);
}

// True when the calling thread holds `m` as glibc records it (__owner is the
// holder's kernel thread id for every kind): an unlock or a cond wait by a
// thread that does not hold the mutex fails (or is undefined) and is no event.
// One exception: a robust mutex whose owner died is held by the thread that
// got EOWNERDEAD with __owner PTHREAD_MUTEX_INCONSISTENT (INT_MAX) until it
// calls pthread_mutex_consistent (or unlocks it for good); its futex word
// carries the holder's id, which is what glibc's unlock checks too.
SEER_RT_INLINE bool HoldsMutex(const ThreadState* ts, const pthread_mutex_t* m) {
  if (__builtin_expect(m->__data.__owner == ts->os_tid, 1)) return true;
  constexpr int kRobust = 16;                     // glibc's PTHREAD_MUTEX_ROBUST_NORMAL_NP bit of __kind
  constexpr int kInconsistent = 0x7fffffff;       // glibc's PTHREAD_MUTEX_INCONSISTENT
  constexpr unsigned kFutexTidMask = 0x3fffffff;  // linux/futex.h FUTEX_TID_MASK
  return (m->__data.__kind & kRobust) != 0 && m->__data.__owner == kInconsistent &&
         static_cast<int>(m->__data.__lock & kFutexTidMask) == ts->os_tid;
}

}  // namespace seer::rt
