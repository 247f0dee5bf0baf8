// Weak-causally-precedes race detection: Algorithm 1 of Kini, Mathur and
// Viswanathan, "Dynamic Race Prediction in Linear Time" (PLDI 2017), with the
// R_x / W_x race check of its section 3.2. WCP orders fewer events than HB, so it
// reports more races; the first one is a real race or a real deadlock.
// docs/analyses.md lists where this follows RAPID rather than the paper's text.
#pragma once

#include <deque>
#include <memory>
#include <vector>

#include "predictor/common/clock_snapshot.h"
#include "predictor/common/flat_map.h"
#include "predictor/common/release_times.h"
#include "predictor/common/sync_ops.h"
#include "predictor/common/two_clock_engine.h"
#include "predictor/common/vector_clock.h"
#include "predictor/engine.h"

namespace seer::predictor {

// A critical section a thread is inside: what it read and wrote (R, W).
struct WcpOpenSection {
  uint64_t lock;
  uint32_t lock_index;                  // of the lock's state in locks_ (stable), saving a probe per access
  bool shared;                          // read-mode: excludes only write-mode sections
  uint64_t id;                          // unique over the run
  std::vector<uint32_t> reads, writes;  // indices into the lock's `vars`
};

// Threads, the event loop, fork/join and the shadow cells: two_clock_engine.h.
class WcpEngine : public TwoClockEngine<WcpEngine, WcpOpenSection> {
 public:
  explicit WcpEngine(const AnalysisOptions& options);

  Status Finish(Findings* findings) override;

  // Largest total number of critical sections held in the queues at once (the
  // algorithm's only state that can grow with the trace).
  uint64_t max_queue_entries() const { return max_queue_entries_; }
  // Sections folded out of the queues over the memory bound (0 on most traces).
  uint64_t folded_sections() const { return folded_sections_; }

 private:
  // A critical section in a lock's queue: N_t at its acquire, H_t at its release.
  // Only the acquire's own entry is kept: every clock a P receives is the HB time
  // of an event that publishes (release, fork, signal; a thread's end), and each
  // of those is the last event at its local time. So P_u(t) >= N_t(acquire)
  // holds exactly when P_u includes an HB time of t's at or after the acquire,
  // which includes C_t(acquire) (P <= H, and H only grows): the paper's test
  // C_t(acquire) <= C_u is one comparison, not one per thread.
  //
  // The release clock is kept as the entries where it exceeds the release clock
  // of the section before it in the queue (`delta`). The write-mode sections of
  // a lock are HB-ordered, and the acquire joins the previous release (H_l), so
  // each release clock includes the previous one. Rule (b) joins a section's
  // release only into a P that already includes the previous release: for
  // another thread's section, P knows its acquire, hence all of C_t(acquire);
  // for the thread's own (RAPID), the walk has just passed the section before
  // it. So joining the delta is joining the clock, and a queue costs the entries
  // that changed, not one clock of every thread per section (with 10,000
  // threads a clock is 40 KB). One exception: a thread whose cursor is at its
  // own section when it acquires (it never walked the sections before, as
  // when its cursor started at a trimmed queue's end) may join that section
  // with the previous release unknown, so its delta is the whole clock (`full`).
  struct Section {
    uint32_t tid = 0;
    bool full = false;        // delta is over nothing, not over the previous release
    ClockValue acquire = 0;   // N_t at the acquire
    ClockValue released = 0;  // N_t at the release: the test reads this, not the clock's storage
    std::vector<std::pair<uint32_t, ClockValue>> delta;  // (thread, time) over the previous release
  };
  // L^r_{l,x} and L^w_{l,x}: ReleaseTimes (release_times.h).
  struct LockState {
    VectorClock h, p;            // H_l, P_l: last write-mode release
    VectorClock h_read, p_read;  // joins of read-mode releases (rwlocks)
    // One FIFO of critical sections with a read position per thread stands for
    // the paper's queues Acq_l(t) / Rel_l(t) for every t.
    std::deque<Section> queue;
    uint64_t queue_base = 0;       // sequence number of queue.front()
    std::vector<uint64_t> cursor;  // per thread: next sequence number to look at
    uint64_t open = 0;             // sequence number of the holder's section
    // The release clock of the section before queue.front() (the join of the
    // deltas dropped): what a thread whose cursor is behind the queue (Fold)
    // receives.
    VectorClock dropped;
    FlatMap64<ReleaseTimes> vars;  // by rule (a) name (VarOf)
  };
  // The event loop (two_clock_engine.h) calls Access, Acquire, Release,
  // InnerRelease, Signal, Wait and EndSignals.
  friend class TwoClockEngine<WcpEngine, WcpOpenSection>;
  // An access, or (`freed`) a free: a write of the whole block (sync_ops.h).
  [[gnu::always_inline]] inline void Access(uint32_t tid, const LoweredOp& op, bool freed);  // runs per access
  [[gnu::always_inline]] inline void RuleA(uint32_t tid, uint64_t var, bool write);
  void Acquire(uint32_t tid, uint64_t lock, bool shared);
  void Release(uint32_t tid, uint64_t lock, bool shared);
  void InnerRelease(uint32_t tid, uint64_t lock);
  void Signal(uint32_t tid, uint64_t object);
  void Wait(uint32_t tid, uint64_t object);
  void EndSignals(uint64_t object);
  void ApplyRuleB(uint32_t tid, LockState* l);
  bool IsHeld(uint32_t tid, uint64_t lock);  // in write mode
  void Publish(uint32_t tid, LockState* l, uint64_t lock, bool shared);
  LockState& Lock(uint64_t lock);
  void Trim(LockState* l);
  void Fold(LockState* l);
  static uint64_t BytesOf(const Section& s) { return sizeof(Section) + s.delta.size() * sizeof(s.delta[0]); }
  void DropFront(LockState* l);

  const bool rapid_compatible_;
  // The queues' memory bound (AnalysisOptions::wcp_queue_bytes). A thread that
  // never takes a lock again (a thread pool's idle workers, the main thread
  // waiting in join) never moves its cursor on that lock's queue, so without a
  // bound the queues hold every critical section of the run: 2 billion events
  // of lock pairs would need tens of GB.
  const uint64_t queue_budget_bytes_;
  ClockSnapshotPool snapshot_pool_;  // declared before locks_: outlives their references
  FlatMap64<LockState> locks_;
  FlatMap64<VectorClock> signals_;
  std::vector<std::vector<uint32_t>> spare_;  // emptied R/W lists, reused (no allocation per section)
  std::vector<Section> spare_sections_;       // trimmed queue entries, their clocks reused
  uint64_t queue_entries_ = 0;
  uint64_t queue_bytes_ = 0;  // of the queued sections and their deltas (Fold's bound)
  uint64_t max_queue_entries_ = 0;
  uint64_t folded_sections_ = 0;
};

// Instantiated in wcp_engine.cc, where the inlined steps are defined.
extern template class TwoClockEngine<WcpEngine, WcpOpenSection>;

std::unique_ptr<Engine> NewWcpEngine(const AnalysisOptions& options);

}  // namespace seer::predictor
