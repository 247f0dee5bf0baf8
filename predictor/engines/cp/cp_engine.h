// Causally-precedes (CP) race detection over the whole trace (Smaragdakis et
// al., POPL 2012), computed online and exactly as Raptor does (Roemer, Genç,
// Bond: "Online set-based dynamic analysis for sound predictive race
// detection"), with vector clocks in place of Raptor's sets.
//
// CP is HB;E;HB for the set E of edges rel(m) -> acq(m) between critical
// sections of one lock in different threads that (a) contain conflicting
// accesses, or (b) contain CP-ordered events (acq of the first CP-before the
// release of the second); hard orders (fork, join, signal/wait, barriers) are
// edges too. So an event's CP past is the join of the HB times of the sources
// of the edges whose target acquire happens before it: P_t below, propagated
// along HB as WCP's P is. What makes CP hard online (Raptor's CCP sets) is
// that an edge into an acquire is known only later: at a conflicting access
// inside the section (rule a) or at its release (rule b), and a release's rule
// (b) can itself wait on sections still open in its past. This engine keeps
// each such "unresolved" section (open, or closed with rule (b) still
// undecided) and, when an edge into its acquire appears late, joins the
// edge's time into every clock that already holds the acquire in its HB past:
// threads, locks, signals, and the checks that wait (rule (b) of closed
// sections, race checks). A race check that fails while an unresolved section
// lies in its HB past waits the same way and is reported only once no later
// edge can order it. docs/analyses.md gives the costs.
#pragma once

#include <deque>
#include <memory>
#include <vector>

#include "predictor/common/access_history.h"
#include "predictor/common/clock_snapshot.h"
#include "predictor/common/flat_map.h"
#include "predictor/common/release_times.h"
#include "predictor/common/sync_ops.h"
#include "predictor/common/two_clock_engine.h"
#include "predictor/common/vector_clock.h"
#include "predictor/engine.h"

namespace seer::predictor {

// A section a thread is inside.
struct CpOpenSection {
  uint64_t lock;
  uint32_t lock_index;  // of the lock's state in locks_ (stable)
  bool shared;          // read-mode: no rule (b), meets only write-mode sections
  uint64_t id;          // unique over the run (rule (a)'s dedup marks)
  uint64_t seq;         // write-mode: its sequence number in the lock's history
  ClockValue acquire;   // N_t at the acquire
  // What the acquire joined from the lock (the last write-mode release, and
  // for a write-mode acquire the read-mode ones): every edge into this
  // acquire has a source at or before these releases, so this clock bounds
  // what such an edge can tell.
  VectorClock potential;
  VectorClock in;                       // join of the sources' HB times of the edges into the acquire
  std::vector<uint32_t> reads, writes;  // indices into the lock's `vars`
};

// Threads, the event loop, fork/join and the shadow cells: two_clock_engine.h.
class CpEngine : public TwoClockEngine<CpEngine, CpOpenSection> {
 public:
  explicit CpEngine(const AnalysisOptions& options);

  Status Finish(Findings* findings) override;

  uint64_t late_edges() const { return late_edges_; }  // edges that reached other threads' clocks late
  uint64_t max_waiting_races() const { return max_waiting_races_; }
  uint64_t max_waiting_sections() const { return max_waiting_sections_; }

 private:
  // A write-mode critical section in its lock's history: a source for rule (b).
  // Only the acquire's local time is kept: every clock tested against it is
  // closed under HB, so knowing that time means knowing the whole acquire.
  struct HistoryEntry {
    uint32_t tid = 0;
    ClockValue acquire = 0;    // N_t at the acquire
    ClockSnapshotRef release;  // its HB time; empty while open
  };
  struct LockState {
    VectorClock h, p;                  // HB and CP time of the last write-mode release
    VectorClock h_read, p_read;        // joins of read-mode releases (rwlocks)
    std::deque<HistoryEntry> history;  // write-mode sections, in acquire order
    uint64_t base = 0;                 // sequence number of history.front()
    std::vector<uint64_t> cursor;      // per thread: history before it is CP-before the thread
    uint32_t waiting = 0;              // closed sections of this lock whose rule (b) waits: no trimming
    FlatMap64<ReleaseTimes> vars;      // rule (a), by variable name (VarOf)
  };
  // A released write-mode section whose rule (b) may still change: an
  // unresolved section lay in its release's HB past.
  struct WaitingSection {
    uint32_t tid;
    ClockValue acquire;
    VectorClock potential;
    uint32_t lock_index;
    uint64_t seq;
    uint64_t cursor;  // history before it is known CP-before the release
    VectorClock in;
    VectorClock h, p;  // HB and CP time of the release
  };
  // A failed race check that a late edge may still order.
  struct WaitingRace {
    AccessRecord earlier;
    EventRef later;
    VectorClock h, p;            // HB and CP time of the later access
    bool later_counted = false;  // the later access already counted as racy
    bool ordered = false;
  };
  // A signal object's HB and CP time (a thread's H_t and P_t: two_clock_engine.h).
  struct SignalClocks {
    VectorClock h, p;
  };

  LockState& Lock(uint64_t lock);
  // The event loop (two_clock_engine.h) calls Access, Acquire, Release, Signal,
  // Wait, EndSignals and the hooks OnEvent, OnRacyEvent.
  friend class TwoClockEngine<CpEngine, CpOpenSection>;
  // An access, or (`freed`) a free: a write of the whole block (sync_ops.h).
  void Access(uint32_t tid, const LoweredOp& op, bool freed);
  void RuleA(uint32_t tid, uint64_t var, bool write);
  void Check(uint32_t tid, Cell& cell, const AccessRecord& record, bool write);
  void OnFailedCheck(uint32_t tid, const AccessRecord& earlier);
  void Acquire(uint32_t tid, uint64_t lock, bool shared);
  void Release(uint32_t tid, uint64_t lock, bool shared);
  void Signal(uint32_t tid, uint64_t object);
  void Wait(uint32_t tid, uint64_t object);
  void EndSignals(uint64_t object);
  // Hooks of the event loop (two_clock_engine.h).
  void OnEvent() { ++events_since_settle_; }
  void OnRacyEvent(const Event& e);
  // Rule (b): the HB time of the latest section of `l` before `seq`, of another
  // thread than `tid`, whose acquire is in `p`; nullptr if none past *cursor.
  const VectorClock* RuleBSource(LockState& l, uint32_t tid, uint64_t seq, const VectorClock& p, uint64_t* cursor);
  // An edge with source time `source` into the acquire (tid, acquire) whose
  // edges so far join to *in.
  void AddEdge(uint32_t tid, ClockValue acquire, VectorClock* in, const VectorClock& source);
  void Propagate(uint32_t tid, ClockValue acquire, const VectorClock& source);
  // Whether some unresolved section (open, or waiting) with its acquire in the
  // HB time `h` may still receive an edge whose source knows the event `e`:
  // `e` is in its `potential` but not yet in its `in`. Only such a section's
  // late edges can tell a clock with HB time `h` about `e` (a waiting release
  // that passes a late edge on is such a section too).
  bool UnresolvedBetween(const Epoch& e, const VectorClock& h) const;
  bool OpenMayTell(const Epoch& e, const VectorClock& h) const;  // the same, open sections only
  // The first section of another thread than `tid` in l's history from
  // `cursor` up to (not including) `seq`: the next rule (b) source a release
  // could still gain; nullptr if none.
  const HistoryEntry* NextCandidate(LockState& l, uint32_t tid, uint64_t seq, uint64_t cursor) const;
  // Settles the waiting sections and race checks that no unresolved section
  // can change any more.
  void Settle();
  void ReportWaitingRaces(bool all);
  void Trim(LockState* l);

  ClockSnapshotPool snapshot_pool_;  // declared before locks_: outlives their references
  FlatMap64<LockState> locks_;
  FlatMap64<SignalClocks> signals_;
  std::vector<WaitingSection> waiting_sections_;
  std::vector<WaitingRace> waiting_races_;
  uint64_t edges_ = 0, late_edges_ = 0;
  uint64_t max_waiting_races_ = 0, max_waiting_sections_ = 0;
  uint64_t history_ = 0, max_history_ = 0;
  uint64_t events_since_settle_ = 0;  // sections in the locks' histories
};

// Instantiated in cp_engine.cc, where the steps are defined.
extern template class TwoClockEngine<CpEngine, CpOpenSection>;

std::unique_ptr<Engine> NewCpEngine(const AnalysisOptions& options);

}  // namespace seer::predictor
