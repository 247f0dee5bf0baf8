// The one lowering of the event kinds into the few operations the race engines
// reason about, so that every engine treats condition variables, atomics, barriers
// and semaphores alike (docs/analyses.md, "Shared choices"):
//   atomic access to x  -> by its C11 memory order (EventLowering below): an
//                          acquire waits on x's sync object, a release signals it,
//                          a relaxed access orders nothing; access(x, atomic)
//   fence               -> release: later relaxed stores release; acquire: earlier
//                          relaxed loads acquire
//   cond wait begin     -> release(mutex);  cond wait end -> wait(cond), acquire(mutex)
//   signal / wait       -> signal(object) / wait(object): a release-acquire edge, no exclusion
//   barrier arrive/depart -> signal(barrier) / wait(barrier)
//   alloc               -> fresh(range): forget the range's access history; then,
//                          for a heap block, write(range)
//   free                -> free(range): a write of the whole block
// Kinds no race engine needs (function entry/exit, branches, atomic blocks, thread
// begin/end) lower to nothing.
#pragma once

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "predictor/common/shadow_memory.h"
#include "seer/event.h"

namespace seer::predictor {

enum class SyncOp : uint8_t {
  kRead,
  kWrite,
  kAcquire,
  kRelease,
  kFork,    // object = child tid
  kJoin,    // object = joined tid
  kSignal,  // object = sync object (separate namespace from locks)
  kWait,
  kFresh,       // object = address, size = bytes: the range gets a new identity
  kEndSignals,  // object = sync object: its signals so far reach no later wait
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
  uint64_t object;  // address, lock id, sync object or thread id
  uint64_t size;    // bytes, for kRead / kWrite / kFresh / kFree
  bool atomic;      // kRead / kWrite: an atomic access (never races with atomics)
  bool shared;      // kAcquire / kRelease: a read-mode (rwlock) section
};

// The sync object (signal namespace) through which atomics on `address`
// synchronise: it holds the release sequence's clock. Bit 63 keeps it apart from
// futex words, semaphores and other signal objects at the same address; user-space
// addresses and imported ids never set it.
inline uint64_t AtomicSyncObject(uint64_t address) { return address | (1ull << 63); }

// Plain reads and writes are most of a trace and lower to themselves: engines
// may handle them before EventLowering::Lower, skipping the dispatch.
inline bool IsPlainAccessEvent(const Event& e) { return e.kind == EventKind::kRead || e.kind == EventKind::kWrite; }
inline LoweredOp PlainAccessOp(const Event& e) {
  return LoweredOp{e.kind == EventKind::kRead ? SyncOp::kRead : SyncOp::kWrite, e.object, e.aux, false, false};
}

// Calls `access(const LoweredOp&)` for the accesses an access op `op` of event `e`
// makes: an atomic read-modify-write reads before it writes (in every race
// engine it races as a read too, and engines that keep every read's writer order
// it after the write it read from), everything else is its one access.
template <typename Fn>
inline void ForEachAccess(const Event& e, const LoweredOp& op, Fn&& access) {
  if (op.op == SyncOp::kWrite && e.kind == EventKind::kAtomicRmw)
    access(LoweredOp{SyncOp::kRead, op.object, op.size, op.atomic, false});
  access(op);
}

inline bool OrderAcquires(uint8_t order) {
  const auto o = static_cast<MemoryOrder>(order);
  return o == MemoryOrder::kConsume || o == MemoryOrder::kAcquire || o == MemoryOrder::kAcqRel ||
         o == MemoryOrder::kSeqCst;
}
inline bool OrderReleases(uint8_t order) {
  const auto o = static_cast<MemoryOrder>(order);
  return o == MemoryOrder::kRelease || o == MemoryOrder::kAcqRel || o == MemoryOrder::kSeqCst;
}

// Lowers events in trace order. Stateful for C11 atomics (a thread's release
// fences and the relaxed loads that a later acquire fence turns into acquires)
// and for frees (the size of each live block).
//
// Atomics by memory order (C++20 release sequences). x's sync object holds the
// clock that an acquire reading x now synchronises with:
//   release store (or any store after a release fence): it replaces that clock
//     (ends the sequences before it and heads a new one);
//   relaxed store: it empties it (a plain store ends every release sequence);
//   release read-modify-write: it joins into it; relaxed RMW: leaves it (an RMW
//     continues the sequence it reads from);
//   acquire load or RMW: waits on it (before its access: the access itself is
//     ordered after the releases it reads from);
//   seq_cst is acquire plus release (SC's total order adds no happens-before).
// What an allocation (a kAlloc) does to its block after making its bytes new
// variables; the one rule EventLowering and SeqCheck's witness checker follow.
// A heap block (malloc, new, mmap) is written by its allocation, as
// ThreadSanitizer's malloc writes it: a thread that touches the block with
// nothing ordering it after the allocation races with it, even if the
// allocating thread never wrote the block itself. Up to kFreeWholeBlockBytes
// (shadow_memory.h), the bound a free writes too. A descriptor's creation
// writes its byte (ThreadSanitizer's "to catch races between fd usage and
// open"): a close unordered with the open that made the number races with it;
// dup2's creation of its target only reads it, as ThreadSanitizer's (a close
// still races with it, a read or write does not). A thread's stack, TLS, the
// identity close gives a descriptor and memory only declared new
// (AnnotateNewMemory) are fresh, not touched.
enum class BlockAccess : uint8_t { kNone, kRead, kWrite };
inline BlockAccess AllocationAccess(const Event& alloc) {
  switch (static_cast<AllocRegion>(alloc.mode)) {
    case AllocRegion::kHeap:
      return alloc.aux != 0 && alloc.aux <= kFreeWholeBlockBytes ? BlockAccess::kWrite : BlockAccess::kNone;
    case AllocRegion::kFileDescriptor: return BlockAccess::kWrite;
    case AllocRegion::kFileDescriptorDup: return BlockAccess::kRead;
    default: return BlockAccess::kNone;
  }
}

// The value read is not recorded: a load is taken to read the latest store of x in
// the trace, which the runtime's per-address order makes the store it read from
// (hooks_atomic.cc). Fences are approximated on the side of fewer races: a relaxed
// store after a release fence releases the thread's clock at the store, not at the
// fence, and an acquire fence waits on the sync objects of the relaxed loads before
// it as they are at the fence (docs/analyses.md).
class EventLowering {
 public:
  // Calls `fn(const LoweredOp&)` for each operation `e` lowers to, in order.
  template <typename Fn>
  void Lower(const Event& e, Fn&& fn) {
    LowerInline(e, fn);
  }
  // The same, always inlined into the caller. In the template loop of
  // two_clock_engine.h the compiler keeps Lower out of line, a call per lowered
  // event, where it inlined it into wcp's and cp's former plain loops. HB's
  // template loop, which lowers no mutex operation, measured slower with it
  // inlined, so Lower itself stays as it was.
  template <typename Fn>
  [[gnu::always_inline]] inline void LowerInline(const Event& e, Fn&& fn) {
    switch (e.kind) {
      case EventKind::kRead:
      case EventKind::kWrite: fn(PlainAccessOp(e)); return;
      case EventKind::kAtomicLoad:
      case EventKind::kAtomicStore:
      case EventKind::kAtomicRmw: LowerAtomic(e, fn); return;
      case EventKind::kFence: LowerFence(e, fn); return;
      case EventKind::kAcquire:
      case EventKind::kRelease: {
        const bool shared = e.mode == static_cast<uint8_t>(LockMode::kShared);
        fn(LoweredOp{e.kind == EventKind::kAcquire ? SyncOp::kAcquire : SyncOp::kRelease, e.object, 0, false, shared});
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
        if (e.aux != 0) block_sizes_[e.object] = e.aux;
        fn(LoweredOp{SyncOp::kFresh, e.object, e.aux, false, false});
        switch (AllocationAccess(e)) {
          case BlockAccess::kWrite: fn(LoweredOp{SyncOp::kWrite, e.object, e.aux, false, false}); break;
          case BlockAccess::kRead: fn(LoweredOp{SyncOp::kRead, e.object, e.aux, false, false}); break;
          case BlockAccess::kNone: break;
        }
        return;
      case EventKind::kFree: fn(LoweredOp{SyncOp::kFree, e.object, FreedBytes(e), false, false}); return;
      case EventKind::kThreadBegin:
      case EventKind::kThreadEnd:
      case EventKind::kFuncEntry:
      case EventKind::kFuncExit:
      case EventKind::kBranch:
      case EventKind::kAtomicBegin:
      case EventKind::kAtomicEnd:
      case EventKind::kLockWait:
      case EventKind::kLockRequest:
        return;  // a wait orders nothing: its acquire does
      // A race caught in the act orders nothing: the watch engine reports it.
      case EventKind::kWatchSample:
      case EventKind::kWatchHit: return;
    }
  }

 private:
  // A thread's relaxed loads since its last acquire fence are kept up to this many
  // distinct addresses (the oldest half is forgotten beyond it): the bound on this
  // state, at the price of a fence not synchronising through a load that old.
  static constexpr size_t kMaxPendingLoads = 1024;

  struct FenceState {
    bool release_fenced = false;          // a release fence came before: relaxed stores release
    std::vector<uint64_t> relaxed_loads;  // addresses, for the next acquire fence
  };

  FenceState& StateOf(uint32_t tid) {
    if (tid >= threads_.size()) threads_.resize(tid + 1);
    return threads_[tid];
  }

  template <typename Fn>
  void LowerAtomic(const Event& e, Fn&& fn) {
    const uint64_t sync = AtomicSyncObject(e.object);
    const bool acquires = e.kind != EventKind::kAtomicStore && OrderAcquires(e.mode);
    const bool releases = e.kind != EventKind::kAtomicLoad && OrderReleases(e.mode);
    if (acquires) fn(LoweredOp{SyncOp::kWait, sync, 0, false, false});
    const SyncOp access = e.kind == EventKind::kAtomicLoad ? SyncOp::kRead : SyncOp::kWrite;
    fn(LoweredOp{access, e.object, e.aux, true, false});
    if (e.kind == EventKind::kAtomicLoad && acquires) return;
    FenceState& t = StateOf(e.tid);
    if (e.kind != EventKind::kAtomicStore && !acquires) RememberLoad(&t, e.object);
    if (e.kind == EventKind::kAtomicLoad) return;
    const bool release = releases || t.release_fenced;
    if (e.kind == EventKind::kAtomicStore) fn(LoweredOp{SyncOp::kEndSignals, sync, 0, false, false});
    if (release) fn(LoweredOp{SyncOp::kSignal, sync, 0, false, false});
  }

  template <typename Fn>
  void LowerFence(const Event& e, Fn&& fn) {
    FenceState& t = StateOf(e.tid);
    if (OrderAcquires(e.mode)) {
      for (uint64_t address : t.relaxed_loads) fn(LoweredOp{SyncOp::kWait, AtomicSyncObject(address), 0, false, false});
      t.relaxed_loads.clear();
    }
    if (OrderReleases(e.mode)) t.release_fenced = true;
  }

  // The bytes a free writes: those its allocation handed out. The runtime records
  // a free with the block's usable size (malloc_usable_size: the requested size
  // and some slack) and an allocation with the requested size, so the slack would
  // keep a free's write after the next allocation there made the block fresh, and
  // a later free of that block would race with it. A free of a block no
  // allocation described keeps its own size (1 byte when unknown: imported traces).
  uint64_t FreedBytes(const Event& e) {
    auto it = block_sizes_.find(e.object);
    if (it == block_sizes_.end()) return e.aux == 0 ? 1 : e.aux;
    const uint64_t size = it->second;
    block_sizes_.erase(it);
    // A free that names fewer bytes than were allocated ends only those: an
    // munmap of a mapping's first pages (the rest stays mapped). A malloc
    // block's free names at least its allocated size (malloc_usable_size).
    return e.aux != 0 && e.aux < size ? e.aux : size;
  }

  static void RememberLoad(FenceState* t, uint64_t address) {
    std::vector<uint64_t>& loads = t->relaxed_loads;
    if (std::find(loads.begin(), loads.end(), address) != loads.end()) return;
    if (loads.size() == kMaxPendingLoads) loads.erase(loads.begin(), loads.begin() + kMaxPendingLoads / 2);
    loads.push_back(address);
  }

  std::vector<FenceState> threads_;
  std::unordered_map<uint64_t, uint64_t> block_sizes_;  // live block address -> allocated bytes
};

}  // namespace seer::predictor
