// The one lowering of the 24 event kinds into the few operations the race engines
// reason about, so that every engine treats condition variables, atomics, barriers
// and semaphores alike (DESIGN.md, "The event model"):
//   atomic access to x  -> acquire(sync lock of x), access(x, atomic), release(...)
//   cond wait begin     -> release(mutex);  cond wait end -> wait(cond), acquire(mutex)
//   signal / wait       -> signal(object) / wait(object): a release-acquire edge, no exclusion
//   barrier arrive/depart -> signal(barrier) / wait(barrier)
//   alloc               -> fresh(range): forget the range's access history
//   free                -> free(range): a write of the whole block
// Kinds no race engine needs (function entry/exit, branches, atomic blocks, thread
// begin/end) lower to nothing.
#pragma once

#include <cstdint>
#include <unordered_map>

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
  // object = address, size = bytes (at least 1): a plain write of every byte of
  // the block (ThreadSanitizer's "race with free"), which stays the block's last
  // access until an allocation makes the range fresh: an access unordered with
  // the free races with it whether the trace puts it before or after the free
  // (a thread's accesses are placed only between its own numbered events, so
  // the trace may put a read that ran before a free after it). Bytes of blocks
  // above kFreeWholeBlockBytes (shadow_memory.h) that no access touched before
  // the free are not written.
  kFree,
};

struct LoweredOp {
  SyncOp op;
  uint64_t object;     // address, lock id, sync object or thread id
  uint64_t size;       // bytes, for kRead / kWrite / kFresh / kFree
  bool atomic;         // kRead / kWrite: an atomic access (never races with atomics)
  bool shared;         // kAcquire / kRelease: a read-mode (rwlock) section
};

// Lock id of the private lock that makes an atomic access to `address` a
// sync(x) event. User-space addresses and imported lock ids never set bit 63.
inline uint64_t SyncLockOf(uint64_t address) { return address | (1ull << 63); }

// Plain reads and writes are most of a trace and lower to themselves: engines
// may handle them before calling LowerEvent, skipping the dispatch.
inline bool IsPlainAccessEvent(const Event& e) { return e.kind == EventKind::kRead || e.kind == EventKind::kWrite; }
inline LoweredOp PlainAccessOp(const Event& e) {
  return LoweredOp{e.kind == EventKind::kRead ? SyncOp::kRead : SyncOp::kWrite, e.object, e.aux, false, false};
}

// Calls `fn(const LoweredOp&)` for each operation `e` lowers to, in order.
template <typename Fn>
inline void LowerEvent(const Event& e, Fn&& fn) {
  switch (e.kind) {
    case EventKind::kRead:
    case EventKind::kWrite: fn(PlainAccessOp(e)); return;
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
    case EventKind::kAlloc: fn(LoweredOp{SyncOp::kFresh, e.object, e.aux, false, false}); return;
    // A free of unknown size (aux 0: imported traces; the runtime always knows
    // it) writes the block's first byte only (BlockLowering knows better).
    case EventKind::kFree: fn(LoweredOp{SyncOp::kFree, e.object, e.aux == 0 ? 1 : e.aux, false, false}); return;
    case EventKind::kThreadBegin:
    case EventKind::kThreadEnd:
    case EventKind::kFuncEntry:
    case EventKind::kFuncExit:
    case EventKind::kBranch:
    case EventKind::kAtomicBegin:
    case EventKind::kAtomicEnd: return;
  }
}

// LowerEvent for the race engines, which also remembers the size of each live
// block so that a free writes exactly the bytes its allocation handed out. The
// runtime records a free with the block's usable size (malloc_usable_size: the
// requested size and some slack) and an allocation with the requested size, so
// the slack would keep a free's write after the next allocation there made the
// block fresh, and a later free of that block would race with it. A free of a
// block no allocation described keeps its own size (1 byte when unknown).
class BlockLowering {
 public:
  template <typename Fn>
  void Lower(const Event& e, Fn&& fn) {
    if (e.kind == EventKind::kAlloc && e.aux != 0) {
      sizes_[e.object] = e.aux;
    } else if (e.kind == EventKind::kFree) {
      auto it = sizes_.find(e.object);
      if (it != sizes_.end()) {
        const uint64_t size = it->second;
        sizes_.erase(it);
        fn(LoweredOp{SyncOp::kFree, e.object, size, false, false});
        return;
      }
    }
    LowerEvent(e, fn);
  }

 private:
  std::unordered_map<uint64_t, uint64_t> sizes_;  // live block address -> allocated bytes
};

}  // namespace seer
