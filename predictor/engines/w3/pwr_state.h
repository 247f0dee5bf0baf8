// The PWR relation of Lockset-W3 (Sulzmann & Stadtmueller, MPLR 2020, TR Def. 3.1)
// kept as vector clocks: program order, fork/join and signal/wait edges, write-read
// dependencies (done by the engines at reads), and the release-order dependency
// applied by W3() from a per-lock history of critical sections. Both `w3` engines
// share it; the history is bounded for w3-linear and unbounded for the exact w3.
#pragma once

#include <bit>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "predictor/common/flat_map.h"
#include "predictor/common/sync_ops.h"
#include "predictor/common/vector_clock.h"
#include "predictor/engines/w3/lockset_table.h"

namespace seer::predictor::w3 {

class PwrState {
 public:
  // `history_bound`: critical sections kept per (lock, thread); 0 = all of them.
  // `hint_budget_bytes`: the most the hints may take over all locks
  // (AnalysisOptions::w3_position_cache_bytes).
  PwrState(uint64_t history_bound, uint64_t hint_budget_bytes)
      : history_bound_(history_bound),
        ring_mask_(history_bound == 0 ? ~0ull : std::bit_ceil(history_bound) - 1),
        hint_budget_bytes_(hint_budget_bytes) {}

  // The clock of thread t; its own entry is the timestamp of t's next event.
  const VectorClock& Clock(uint32_t t) { return Thread(t).clock; }
  uint32_t Lockset(uint32_t t) { return Thread(t).lockset; }
  LocksetTable& locksets() { return locksets_; }

  // Applies the release-order dependency to t's next event: joins the release
  // clock of every earlier critical section on a lock t holds whose acquire is
  // already ordered before it, until nothing changes (TR Algorithm 1, w3()).
  void W3(uint32_t t);
  // Joins `other` into t's clock (a write-read dependency, done by the engines).
  void JoinClock(uint32_t t, const VectorClock& other) {
    ThreadState& s = Thread(t);
    if (other.LessOrEqual(s.clock)) return;
    s.clock.Join(other);
    s.dirty = true;
  }
  // Ends t's current event: the next one gets a fresh timestamp.
  void Tick(uint32_t t) { Thread(t).clock.Increment(t); }

  // The synchronisation operations; each calls W3 first where the TR does and ticks.
  void Acquire(uint32_t t, uint64_t lock, bool shared);
  void Release(uint32_t t, uint64_t lock);
  void Fork(uint32_t t, uint32_t child);
  void Join(uint32_t t, uint32_t child);
  void Signal(uint32_t t, uint64_t object);
  void Wait(uint32_t t, uint64_t object);
  // The object's signals so far reach no later wait (an atomic's release sequence ended).
  void EndSignals(uint64_t object) { signals_.erase(object); }

  // Critical sections dropped because the history bound was reached.
  uint64_t dropped_sections() const { return dropped_; }

 private:
  struct LockHistory;
  struct Held {
    uint64_t lock;
    bool shared;
    uint32_t depth;        // recursive acquisitions; only the outermost pair counts
    ClockValue acquired;   // timestamp of the outermost acquire
    LockHistory* history;  // the lock's history (stable: owned by a unique_ptr)
    uint64_t seen;         // history->sections when W3 last ran for this holder
    // The lockset before the acquire: the one after the release when no lock
    // taken earlier was released meanwhile (kUnknownLockset then).
    uint32_t lockset_before;
  };
  static constexpr uint32_t kUnknownLockset = ~0u;
  struct ThreadState {
    VectorClock clock;
    std::vector<Held> held;
    uint32_t lockset = 0;
    bool started = false;  // its own clock entry is set (timestamps start at 1)
    bool dirty = true;     // the clock grew from outside since W3 last ran (TR App. G.1)
  };
  // A finished critical section: its acquire's timestamp and its release's clock.
  struct Section {
    ClockValue acquired = 0;
    ClockValue released_at = 0;  // released's own entry: the test reads this, not the clock's storage
    bool shared = false;
    VectorClock released;
  };
  // The sections one thread ran on one lock, oldest first, in a ring that reuses
  // its clocks once the bound is reached. The ring holds a power of two of
  // sections (no division), at least the bound.
  struct SectionList {
    std::vector<Section> ring;
    uint64_t end = 0;  // absolute number of sections ever added
    uint64_t first(uint64_t bound) const { return bound == 0 || end < bound ? 0 : end - bound; }
    // `mask`: the ring's capacity - 1, or all ones when unbounded.
    const Section& at(uint64_t n, uint64_t mask) const { return ring[n & mask]; }
    Section& Append(uint64_t mask) {
      const uint64_t n = end++;
      if (n <= mask && ring.size() <= n) return ring.emplace_back();
      return ring[n & mask];
    }
  };
  // A writer's sections on one lock occupy disjoint intervals of its time,
  // [acquired, released) in its own entry, ascending. A reader whose clock
  // holds the writer's time c knows the acquires up to c; the newest of them
  // adds to its clock exactly when c falls inside that section's interval
  // (its release, later in the writer's time, is not yet known). So per
  // writer only three numbers decide whether any kept section needs a look:
  // the first acquire, and the newest section's acquire and release
  // (and the release before, which rules out the gap before the newest). A
  // reader scans them against its clock, no state per reader and writer.
  // A reader's memory of one writer on one lock (LockHistory::hints).
  struct Hint {
    uint64_t next = 0;     // a section found ordered, plus one (0: none)
    ClockValue quiet = 0;  // an entry for the writer that was found to need no join
  };
  struct LockHistory {
    std::vector<SectionList> by_thread;  // by the thread that ran the sections
    // Per writer: its first section's acquire (max: none), at or before the
    // oldest kept one: reading that one at each release missed the cache.
    std::vector<ClockValue> first_acquired;
    std::vector<ClockValue> newest_acquired;  // per writer: newest section's acquire
    std::vector<ClockValue> newest_released;  // per writer: its own entry at the newest release; 0: none
    // Per writer: the release before the newest (0: none). An entry between it
    // and the newest acquire (the usual place of a reader that lags one
    // section) knows every release before it: nothing to look at.
    std::vector<ClockValue> previous_released;
    // [reader][writer]: where the reader's last search ended (NewestOrdered),
    // so that a reader lagging deep in a long history finds its place again
    // in O(1), as the cursors of the TR's algorithm do. Only a speed-up (the
    // answer does not depend on it), kept within hint_budget_bytes_ over all locks:
    // with many threads these rows would cost threads² per lock.
    std::vector<std::vector<Hint>> hints;
    uint64_t sections = 0;  // sections ever added, by any thread
    // The last lockset transition by an acquire of this lock (most repeat).
    uint32_t with_from = kUnknownLockset;
    bool with_shared = false;
    uint32_t with_to = 0;
  };

  ThreadState& Thread(uint32_t t) {
    if (t < threads_.size() && threads_[t].started) return threads_[t];
    return StartThread(t);
  }
  ThreadState& StartThread(uint32_t t);
  bool JoinOrderedSections(uint32_t t, ThreadState& s, const Held& h);
  // The newest kept section of writer j whose acquire is at or before `seen`
  // (j's entry in a reader's clock), or nullptr; the newest one must not be.
  // `hint` (may be null): the number of a section this reader already found
  // ordered, plus one (0: none); the search starts there and updates it.
  const Section* NewestOrdered(const SectionList& list, ClockValue seen, uint64_t* hint) const;
  // The hint row of reader t on a lock, as long as the budget allows (it may be
  // shorter than the writers, or empty).
  std::vector<Hint>& HintsOf(LockHistory& hist, uint32_t t);

  uint64_t history_bound_;
  uint64_t ring_mask_;
  uint64_t hint_budget_bytes_;
  uint64_t hint_bytes_ = 0;
  uint64_t dropped_ = 0;
  std::vector<ThreadState> threads_;
  FlatMap64<std::unique_ptr<LockHistory>> history_;
  std::unordered_map<uint64_t, VectorClock> signals_;
  LocksetTable locksets_;
};

}  // namespace seer::predictor::w3
