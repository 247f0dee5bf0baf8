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
#include "predictor/w3/lockset_table.h"

namespace seer::w3 {

class PwrState {
 public:
  // `history_bound`: critical sections kept per (lock, thread); 0 = all of them.
  explicit PwrState(uint64_t history_bound)
      : history_bound_(history_bound), ring_mask_(history_bound == 0 ? ~0ull : std::bit_ceil(history_bound) - 1) {}

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
    uint32_t depth;         // recursive acquisitions; only the outermost pair counts
    ClockValue acquired;    // timestamp of the outermost acquire
    LockHistory* history;   // the lock's history (stable: owned by a unique_ptr)
    uint64_t seen;          // history->sections when W3 last ran for this holder
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
    bool shared = false;
    VectorClock released;
  };
  // The sections one thread ran on one lock, oldest first, in a ring that reuses
  // its clocks once the bound is reached. Release clocks grow along the list, so
  // joining the newest section whose acquire is ordered before an event covers all
  // earlier ones: each reader keeps cursors and joins once.
  // The ring holds a power of two of sections (no division), at least the bound.
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
  struct Cursor {
    uint64_t any = 0;        // next section to consider when holding the lock exclusively
    uint64_t exclusive = 0;  // ... when holding it shared (only exclusive sections count)
  };
  struct LockHistory {
    std::vector<SectionList> by_thread;        // by the thread that ran the sections
    std::vector<std::vector<Cursor>> cursors;  // [reader][writer]
    uint64_t sections = 0;                     // sections ever added, by any thread
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

  uint64_t history_bound_;
  uint64_t ring_mask_;
  uint64_t dropped_ = 0;
  std::vector<ThreadState> threads_;
  FlatMap64<std::unique_ptr<LockHistory>> history_;
  std::unordered_map<uint64_t, VectorClock> signals_;
  LocksetTable locksets_;
};

}  // namespace seer::w3
