// An independent re-check of SeqCheck's witnesses. It shares no code with the
// closure (not even the lowering of event kinds): it replays a schedule of trace
// positions against the definition of a feasible trace (per-thread prefixes,
// lock semantics with read-mode sharing and recursive re-acquisition, fork/join,
// signals, reads that a branch follows seeing their recorded writes, byte by
// byte) and checks that the schedule realises the claimed bug. Accesses are byte
// ranges: two conflict when they share a byte that no allocation renewed between
// them, and a free writes the bytes of its block. A witness it rejects is a bug in seer.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "predictor/findings.h"
#include "seer/event.h"
#include "seer/status.h"

namespace seer::predictor::seqcheck {

class WitnessChecker {
 public:
  // `trace` in total order; kept by reference. `carried`: its first events are a
  // window's carried acquires (trace_windows.h), which run before any other.
  explicit WitnessChecker(const std::vector<Event>& trace, size_t carried = 0);

  // Ok when `schedule` (trace positions, Event::index) is a feasible trace in
  // which each event of `enabled` is the next event of its thread.
  Status CheckFeasible(const Schedule& schedule, const std::vector<uint64_t>& enabled = {}) const;

  // The schedule is feasible and ends in the deadlock: every cycle thread's next
  // event is its blocked acquisition, a call that can wait forever (not a
  // trylock or timed lock), of a lock the next cycle thread holds.
  Status CheckDeadlock(const Deadlock& d) const;
  // The schedule is feasible and runs local_first, remote, local_second in that
  // order: accesses of one variable, the first and last by one thread, with the
  // pattern's read/write kinds.
  Status CheckAtomicity(const AtomicityViolation& v) const;
  // The schedule is feasible and ends with both accesses enabled: they conflict
  // and either could run next.
  Status CheckRace(const Schedule& schedule, const EventRef& a, const EventRef& b) const;

 private:
  // One lock's holders: the threads that hold it, each with its nesting depth
  // (> 0) and whether its outermost hold is in read mode. A thread leaves at
  // its outermost release: they are few at a time, so a vector searched
  // through (two maps per lock cost a lookup each per lock event).
  struct Holder {
    uint32_t tid;
    uint32_t depth;
    bool shared;
  };
  struct LockState {
    std::vector<Holder> holders;
    Holder* Of(uint32_t tid) {  // null when tid holds none
      for (Holder& h : holders)
        if (h.tid == tid) return &h;
      return nullptr;
    }
    const Holder* Of(uint32_t tid) const { return const_cast<LockState*>(this)->Of(tid); }
  };
  using Locks = std::unordered_map<uint64_t, LockState>;
  struct Replay;  // the state after replaying a schedule
  Status Run(const Schedule& schedule, const std::vector<uint64_t>& enabled, Replay* out) const;
  // Replays the trace in its recorded order once, event by event in the
  // constructor's pass: how far it is feasible (recorded_ok_), and the locks
  // held every kCheckpoint positions (locks_at_).
  class RecordedReplay;
  // How many of the schedule's first positions are the trace's first ones in
  // recorded order, up to where the recorded order replays.
  size_t RecordedPrefix(const Schedule& schedule) const;
  // The state after the trace's first q events in recorded order.
  void StartAfterRecorded(size_t q, Replay* r) const;
  // Applies a lock event (acquire, release, cond wait begin/end) to `locks`;
  // an error when it acquires a lock another thread holds.
  static Status ApplyLock(const Event& e, Locks* locks);
  // The same, for lock `lock` (LockOf) whose state the caller found.
  static Status ApplyLock(const Event& e, uint64_t lock, LockState* state);
  // The lock a lock event takes or gives back (a cond wait's mutex); false for
  // any other event.
  static bool LockOf(const Event& e, uint64_t* lock);
  // The last write (Event::index, -1 none) of variable slot `slot` among the
  // trace's first q events.
  int64_t RecordedLastWrite(uint32_t slot, size_t q) const;
  bool Position(uint64_t index, size_t* at) const;

  const std::vector<Event>& trace_;
  size_t carried_ = 0;
  bool dense_ = true;                                 // trace_[i].index == i
  bool ascending_ = true;                             // indices strictly ascend: Position is a binary search
  std::unordered_map<uint64_t, size_t> where_;        // index -> position when neither
  std::vector<uint32_t> thread_pos_;                  // position of each event in its thread
  std::vector<std::vector<uint32_t>> thread_events_;  // per thread slot: its positions
  // Per event, its variables: slots_[slot_begin_[i] .. slot_begin_[i + 1]), each
  // a run of bytes accessed together until an allocation covers it, ascending;
  // for reads, recorded_[k] is the last write of slots_[k] before it, -1 none.
  std::vector<uint32_t> slot_begin_;
  std::vector<uint32_t> slots_;
  std::vector<int64_t> recorded_;
  // Per variable slot, the positions of its writes, ascending:
  // write_pos_[write_begin_[v] .. write_begin_[v + 1]).
  std::vector<uint32_t> write_begin_;
  std::vector<uint32_t> write_pos_;
  // Whether the events at positions a, b and c access a common variable.
  bool ShareVariable(size_t a, size_t b, size_t c) const;
  std::vector<uint32_t> thread_slot_;  // a dense number for the event's thread
  std::unordered_map<uint32_t, uint32_t> slot_of_thread_;
  size_t variables_ = 0;
  bool has_branches_ = false;
  // Signal positions per object and thread, ascending.
  std::unordered_map<uint64_t, std::unordered_map<uint32_t, std::vector<size_t>>> signals_;
  std::unordered_map<uint32_t, size_t> fork_of_;  // child -> position of its (first) fork
  // The recorded order: its first recorded_ok_ events replay; locks_at_[c] is the
  // locks held after the first c * kCheckpoint events (only locks with a holder).
  static constexpr size_t kCheckpoint = 4096;
  size_t recorded_ok_ = 0;
  std::vector<Locks> locks_at_;
};

// A WitnessChecker built when the first witness is to be checked, and kept for
// the others. Its tables cost a pass over the whole window (about a tenth of an
// engine's time), and most windows of a long trace have no witness to check.
class LazyWitnessChecker {
 public:
  explicit LazyWitnessChecker(const std::vector<Event>& trace, size_t carried = 0) : trace_(trace), carried_(carried) {}
  const WitnessChecker& Get() {
    if (!checker_) checker_.emplace(trace_, carried_);
    return *checker_;
  }

 private:
  const std::vector<Event>& trace_;
  const size_t carried_;
  std::optional<WitnessChecker> checker_;
};

}  // namespace seer::predictor::seqcheck
