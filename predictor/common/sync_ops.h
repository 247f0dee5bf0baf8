// The one lowering of the 24 event kinds into the few operations the race engines
// reason about, so that every engine treats condition variables, atomics, barriers
// and semaphores alike (DESIGN.md, "The event model"):
//   atomic access to x  -> acquire(sync lock of x), access(x, atomic), release(...)
//   cond wait begin     -> release(mutex);  cond wait end -> wait(cond), acquire(mutex)
//   signal / wait       -> signal(object) / wait(object): a release-acquire edge, no exclusion
//   barrier arrive/depart -> signal(barrier) / wait(barrier)
//   alloc / free        -> fresh(range): forget the range's access history
// Kinds no race engine needs (function entry/exit, branches, atomic blocks, thread
// begin/end) lower to nothing.
#pragma once

#include <cstdint>

#include "seer/event.h"

namespace seer {

enum class SyncOp : uint8_t {
  kRead,
  kWrite,
  kAcquire,
  kRelease,
  kFork,    // object = child tid
  kJoin,    // object = joined tid
  kSignal,  // object = sync object (separate namespace from locks)
  kWait,
  kFresh,   // object = address, size = bytes: the range gets a new identity
};

struct LoweredOp {
  SyncOp op;
  uint64_t object;     // address, lock id, sync object or thread id
  uint64_t size;       // bytes, for kRead / kWrite / kFresh
  bool atomic;         // kRead / kWrite: an atomic access (never races with atomics)
  bool shared;         // kAcquire / kRelease: a read-mode (rwlock) section
};

// Lock id of the private lock that makes an atomic access to `address` a
// sync(x) event. User-space addresses and imported lock ids never set bit 63.
inline uint64_t SyncLockOf(uint64_t address) { return address | (1ull << 63); }

// Calls `fn(const LoweredOp&)` for each operation `e` lowers to, in order.
template <typename Fn>
inline void LowerEvent(const Event& e, Fn&& fn) {
  switch (e.kind) {
    case EventKind::kRead: fn(LoweredOp{SyncOp::kRead, e.object, e.aux, false, false}); return;
    case EventKind::kWrite: fn(LoweredOp{SyncOp::kWrite, e.object, e.aux, false, false}); return;
    case EventKind::kAtomicLoad:
    case EventKind::kAtomicStore:
    case EventKind::kAtomicRmw: {
      const uint64_t lock = SyncLockOf(e.object);
      const SyncOp access = e.kind == EventKind::kAtomicLoad ? SyncOp::kRead : SyncOp::kWrite;
      fn(LoweredOp{SyncOp::kAcquire, lock, 0, false, false});
      fn(LoweredOp{access, e.object, e.aux, true, false});
      fn(LoweredOp{SyncOp::kRelease, lock, 0, false, false});
      return;
    }
    case EventKind::kAcquire:
    case EventKind::kRelease: {
      const bool shared = e.mode == static_cast<uint8_t>(LockMode::kShared);
      fn(LoweredOp{e.kind == EventKind::kAcquire ? SyncOp::kAcquire : SyncOp::kRelease, e.object, 0, false,
                   shared});
      return;
    }
    case EventKind::kCondWaitBegin: fn(LoweredOp{SyncOp::kRelease, e.aux, 0, false, false}); return;
    case EventKind::kCondWaitEnd:
      fn(LoweredOp{SyncOp::kWait, e.object, 0, false, false});
      fn(LoweredOp{SyncOp::kAcquire, e.aux, 0, false, false});
      return;
    case EventKind::kSignal:
    case EventKind::kBarrierArrive: fn(LoweredOp{SyncOp::kSignal, e.object, 0, false, false}); return;
    case EventKind::kWait:
    case EventKind::kBarrierDepart: fn(LoweredOp{SyncOp::kWait, e.object, 0, false, false}); return;
    case EventKind::kFork: fn(LoweredOp{SyncOp::kFork, e.object, 0, false, false}); return;
    case EventKind::kJoin: fn(LoweredOp{SyncOp::kJoin, e.object, 0, false, false}); return;
    case EventKind::kAlloc:
    case EventKind::kFree: fn(LoweredOp{SyncOp::kFresh, e.object, e.aux, false, false}); return;
    case EventKind::kThreadBegin:
    case EventKind::kThreadEnd:
    case EventKind::kFuncEntry:
    case EventKind::kFuncExit:
    case EventKind::kBranch:
    case EventKind::kAtomicBegin:
    case EventKind::kAtomicEnd: return;
  }
}

}  // namespace seer
