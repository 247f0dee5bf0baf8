#include "predictor/engines/lockset/lockset_engine.h"

#include <algorithm>
#include <unordered_set>
#include <vector>

#include "predictor/common/held_locks.h"
#include "predictor/common/race_collector.h"
#include "predictor/common/shadow_memory.h"
#include "predictor/common/sync_ops.h"
#include "predictor/common/thread_ids.h"

namespace seer::predictor {
namespace {

// Lock ids engines never see from a trace: user locks and AtomicSyncObject() ids
// never set bit 62 alone.
uint64_t ThreadLockOf(uint32_t tid) { return (1ull << 62) | tid; }

enum class State : uint8_t { kVirgin, kExclusive, kShared, kSharedModified };

struct Cell {
  State state = State::kVirgin;
  bool read_only = false;            // RAPID: only reads so far (its "dummy read lock")
  uint32_t owner = 0;                // kExclusive: the only thread so far
  std::vector<uint64_t> candidates;  // sorted
  bool has_write = false, has_read = false;
  EventRef last_write, last_read;
};

// set := set ∩ held, in place (both sorted): no allocation on the hot path.
void Intersect(std::vector<uint64_t>* set, const std::vector<uint64_t>& held) {
  size_t out = 0, h = 0;
  for (size_t i = 0; i < set->size(); ++i) {
    const uint64_t lock = (*set)[i];
    while (h < held.size() && held[h] < lock) ++h;
    if (h < held.size() && held[h] == lock) (*set)[out++] = lock;
  }
  set->resize(out);
}

// A thread holds a handful of locks: insertion sort, without std::sort's setup
// (this runs on every outermost acquire and release).
void SortFew(std::vector<uint64_t>* v) {
  uint64_t* a = v->data();
  for (size_t i = 1; i < v->size(); ++i) {
    const uint64_t x = a[i];
    size_t j = i;
    for (; j > 0 && a[j - 1] > x; --j) a[j] = a[j - 1];
    a[j] = x;
  }
}

class LocksetEngine : public Engine {
 public:
  explicit LocksetEngine(bool rapid) : rapid_(rapid) {}

  Status Begin(const TraceInfo& info) override {
    // Only the runtime writes sync-object bytes, and in a recorded trace locks
    // and variables are addresses of one space; an imported or generated
    // trace numbers its locks and variables apart (lock 0, variable 0).
    learn_sync_objects_ = !info.Meta("record.sync").empty();
    return Status::Ok();
  }

  void Process(const Event* events, size_t n) override {
    if (learn_sync_objects_) LearnSyncObjects(events, n);
    for (size_t i = 0; i < n; ++i) {
      const Event& e = events[i];
      if (!thread_ids_.Accept(e)) continue;
      current_ = EventRef::Of(e);
      racy_ = false;
      if (IsPlainAccessEvent(e)) {
        Apply(e.tid, PlainAccessOp(e));  // most events: no lowering dispatch
      } else {
        // An allocation's write of its block (sync_ops.h) is the ordering
        // engines' to race with: locksets know no fork, join or publication,
        // so every block used by a thread other than the one that allocated
        // it would be a warning. The block's fresh identity stays.
        const bool allocation = e.kind == EventKind::kAlloc;
        lowering_.Lower(e, [&](const LoweredOp& op) {
          if (!allocation || op.op != SyncOp::kWrite) Apply(e.tid, op);
        });
      }
      if (racy_) collector_.AddRacyEvent(current_);
    }
  }

  Status Finish(Findings* findings) override {
    if (!thread_ids_.status().ok()) return thread_ids_.status();
    RaceResult result;
    collector_.Fill("lockset", Guarantee::kHeuristic, &result);
    findings->races.push_back(std::move(result));
    return Status::Ok();
  }

 private:
  // The locks a thread holds, sorted: all of them (count for reads) and the
  // write-mode ones (count for writes; read-mode holds do not exclude readers).
  struct Holds {
    bool ready = false;
    std::vector<uint64_t> for_read, for_write;
  };

  Holds& HoldsOf(uint32_t tid) {
    if (tid >= holds_.size()) holds_.resize(tid + 1);
    return holds_[tid];
  }

  void Recompute(uint32_t tid) {
    Holds& h = HoldsOf(tid);
    h.ready = true;
    h.for_read.clear();
    h.for_write.clear();
    for (const HeldLock& l : held_.Of(tid)) {
      h.for_read.push_back(l.lock);
      if (!l.shared) h.for_write.push_back(l.lock);
    }
    if (rapid_) {
      h.for_read.push_back(ThreadLockOf(tid));
      h.for_write.push_back(ThreadLockOf(tid));
    }
    SortFew(&h.for_read);
    SortFew(&h.for_write);
  }

  void Apply(uint32_t tid, const LoweredOp& op) {
    switch (op.op) {
      case SyncOp::kAcquire:
        if (held_.Acquire(tid, op.object, op.shared)) Recompute(tid);
        return;
      case SyncOp::kRelease: {
        bool shared = false;
        if (held_.Release(tid, op.object, &shared)) Recompute(tid);
        return;
      }
      case SyncOp::kRead:
      case SyncOp::kWrite: {
        // The byte the runtime reads at each use of a synchronisation object
        // and writes at its init and destroy (docs/runtime.md): its lifetime
        // races are the ordering engines' to find. Locksets know no fork or
        // join, so every init before a pthread_create would be a warning.
        if (op.size == 1 && sync_objects_.count(op.object) != 0) return;
        const bool write = op.op == SyncOp::kWrite;
        const std::vector<uint64_t>& held = Held(tid, write);
        shadow_.Access(op.object, op.size, [&](Cell& cell) { Step(&cell, tid, write, op.atomic, held); });
        return;
      }
      case SyncOp::kFresh: shadow_.Fresh(op.object, op.size); return;
      // A write of the whole block (sync_ops.h).
      case SyncOp::kFree: {
        const std::vector<uint64_t>& held = Held(tid, /*write=*/true);
        shadow_.ForEachFreed(op.object, op.size,
                             [&](Cell& cell) { Step(&cell, tid, /*write=*/true, /*atomic=*/false, held); });
        return;
      }
      case SyncOp::kFork:
      case SyncOp::kJoin:
      case SyncOp::kSignal:
      case SyncOp::kWait:
      case SyncOp::kEndSignals: return;  // locksets ignore ordering
    }
  }

  // The synchronisation objects the batch uses, before its accesses: the
  // runtime reads an object's byte just before a signal, post or barrier
  // arrival, and writes it at the init, before any use. A byte learned late
  // (its init in an earlier batch) starts afresh.
  void LearnSyncObjects(const Event* events, size_t n) {
    for (size_t i = 0; i < n; ++i) {
      const Event& e = events[i];
      switch (e.kind) {
        case EventKind::kCondWaitBegin:
        case EventKind::kCondWaitEnd:
          Learn(e.aux);  // the mutex
          [[fallthrough]];
        case EventKind::kAcquire:
        case EventKind::kRelease:
        case EventKind::kSignal:
        case EventKind::kWait:
        case EventKind::kBarrierArrive:
        case EventKind::kBarrierDepart: Learn(e.object); break;
        default: break;
      }
    }
  }
  void Learn(uint64_t object) {
    if (sync_objects_.insert(object).second) shadow_.Fresh(object, 1);
  }

  // The locks that protect a write (or a read) of thread tid now: computed once
  // per access, not per cell.
  const std::vector<uint64_t>& Held(uint32_t tid, bool write) {
    if (!HoldsOf(tid).ready) Recompute(tid);
    return write ? holds_[tid].for_write : holds_[tid].for_read;
  }

  // One access's step in one cell.
  void Step(Cell* cell, uint32_t tid, bool write, bool atomic, const std::vector<uint64_t>& held) {
    const bool violation = rapid_ ? RapidStep(cell, write, held) : EraserStep(cell, tid, write, held);
    if (violation) Report(*cell, tid, write, atomic);
    if (write) {
      cell->has_write = true;
      cell->last_write = current_;
    } else {
      cell->has_read = true;
      cell->last_read = current_;
    }
  }

  // RAPID's LockSet: candidates = locks held at every access so far, each thread
  // holding its own lock; a location read but never written is never reported.
  static bool RapidStep(Cell* c, bool write, const std::vector<uint64_t>& held) {
    if (c->state == State::kVirgin) {
      c->state = State::kSharedModified;
      c->candidates = held;
      c->read_only = !write;
    }
    Intersect(&c->candidates, held);
    if (write) c->read_only = false;
    return c->candidates.empty() && !c->read_only;
  }

  // Eraser's state machine (Savage et al., Fig. 4).
  static bool EraserStep(Cell* c, uint32_t tid, bool write, const std::vector<uint64_t>& held) {
    switch (c->state) {
      case State::kVirgin:
        c->state = State::kExclusive;
        c->owner = tid;
        return false;
      case State::kExclusive:
        if (tid == c->owner) return false;
        c->candidates = held;
        c->state = write ? State::kSharedModified : State::kShared;
        return write && c->candidates.empty();
      case State::kShared:
        Intersect(&c->candidates, held);
        if (!write) return false;
        c->state = State::kSharedModified;
        return c->candidates.empty();
      case State::kSharedModified: Intersect(&c->candidates, held); return c->candidates.empty();
    }
    return false;
  }

  // Lockset has no order to name the other access: pair with the location's
  // last conflicting access by another thread. Atomic accesses never race with
  // each other, so an atomic access is reported only next to a plain one.
  void Report(const Cell& c, uint32_t tid, bool write, bool atomic) {
    auto pair = [&](const EventRef& other) {
      if (other.tid == tid || (atomic && IsAtomicAccess(other.kind))) return false;
      collector_.AddPair(other, current_);
      return true;
    };
    bool paired = c.has_write && pair(c.last_write);
    if (write && c.has_read) paired |= pair(c.last_read);
    if (paired || !atomic) racy_ = true;
  }

  const bool rapid_;
  ThreadIdCheck thread_ids_;
  EventLowering lowering_;
  HeldLocks held_;
  std::vector<Holds> holds_;
  ShadowMemory<Cell> shadow_;
  bool learn_sync_objects_ = false;
  std::unordered_set<uint64_t> sync_objects_;  // every lock and sync object seen
  RaceCollector collector_;
  EventRef current_;
  bool racy_ = false;
};

}  // namespace

std::unique_ptr<Engine> NewLocksetEngine(const AnalysisOptions& options) {
  return std::make_unique<LocksetEngine>(options.rapid_compatible);
}

}  // namespace seer::predictor
