// What analyses report: races, deadlocks and atomicity violations, each naming
// the events involved by their position in the trace. Reports (text, JSON, ...)
// are made from these alone, together with the trace's names and symbols.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "seer/event.h"

namespace seer::predictor {

// One event of the trace, as a finding refers to it.
// A caught race's other thread when no watchpoint named it, only the value
// changed while the sampled access was held (the watch engine).
inline constexpr uint32_t kThreadNotSeen = UINT32_MAX;

struct EventRef {
  uint64_t index = 0;  // position in the total order
  uint32_t tid = 0;
  uint64_t pc = 0;  // program counter or location id
  EventKind kind = EventKind::kRead;
  uint64_t object = 0;  // address, lock, ...
  uint64_t size = 0;    // bytes, for accesses

  static EventRef Of(const Event& e) { return {e.index, e.tid, e.pc, e.kind, e.object, e.aux}; }
};

// What a reported finding is worth (specs/analyses.md, "Soundness guarantees").
enum class Guarantee {
  kFirstIsReal,  // HB, WCP: the first reported race is real (or, for WCP, a deadlock is)
  kAllReal,      // SHB: every reported race is real
  kComplete,     // Lockset-W3: misses no race; may report false ones (sound for two threads)
  kHeuristic,    // Eraser: neither sound nor complete
  kWitnessed,    // SeqCheck: every finding comes with a validated witness schedule
  kCaught,       // watch: the race happened in the recorded run (a hardware watchpoint caught it)
  kHappened,     // blocked: the recorded run ended in the deadlock (its threads still waiting)
};
const char* GuaranteeName(Guarantee g);
const char* GuaranteeDescription(Guarantee g);

// Trace positions in the order they run. A witness of a long trace runs most of
// it as recorded, so the positions are kept as runs of consecutive ones: a
// schedule of a million positions is a few runs, not 8 MB (hundreds of such
// witnesses made the deadlock engine's 2 GB on a 3M-event trace).
class Schedule {
 public:
  struct Run {
    uint64_t first = 0;  // the run is first, first + 1, ..., first + count - 1
    uint64_t count = 0;
  };

  Schedule() = default;
  Schedule(std::initializer_list<uint64_t> positions) { AppendAll(positions); }
  Schedule(const std::vector<uint64_t>& positions) { AppendAll(positions); }  // NOLINT: a list of positions

  void Append(uint64_t position) { AppendRun(position, 1); }
  void AppendRun(uint64_t first, uint64_t count);

  uint64_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const std::vector<Run>& runs() const { return runs_; }
  // The positions one by one (tests and short schedules; a long one is megabytes).
  std::vector<uint64_t> Positions() const;
  // The last n positions (or all, when fewer).
  std::vector<uint64_t> Tail(size_t n) const;

 private:
  template <typename List>
  void AppendAll(const List& positions) {
    for (uint64_t p : positions) Append(p);
  }

  std::vector<Run> runs_;
  uint64_t size_ = 0;
};

// A schedule realising a finding.
struct Witness {
  Schedule schedule;
  bool validated = false;  // re-checked by the independent feasibility checker
};

// A race pair: two conflicting accesses the analysis leaves unordered. One pair
// is reported per distinct unordered (pc, pc); `first` comes earlier in the trace.
struct RacePair {
  EventRef first;
  EventRef second;
  uint64_t occurrences = 1;  // event pairs found for this (pc, pc)
  // --confirm-races: whether SeqCheck found a feasible reordering reaching both
  // accesses at once (unset: not checked), and then its validated witness.
  std::optional<bool> confirmed = std::nullopt;
  Witness confirmation = {};
};

// The result of one race engine; the three counts are those of specs/analyses.md.
struct RaceResult {
  std::string engine;  // "hb", "wcp", ...
  Guarantee guarantee = Guarantee::kFirstIsReal;
  uint64_t racy_events = 0;     // accesses whose check failed, each counted once
  uint64_t racy_locations = 0;  // distinct pcs of those accesses
  std::vector<RacePair> pairs;  // distinct unordered (pc1, pc2)
};

// The distinct pcs of `pairs`' accesses (a caught race's unseen writer has none):
// RaceResult::racy_locations of an engine whose pairs are all its findings (watch).
uint64_t DistinctPcs(const std::vector<RacePair>& pairs);

// A predicted deadlock: a cycle of threads, each holding one lock and blocked
// acquiring the next thread's.
struct DeadlockThread {
  uint32_t tid = 0;
  uint64_t held_lock = 0;
  EventRef held_acquire;  // where it acquired the lock it holds
  uint64_t wanted_lock = 0;
  EventRef blocked_acquire;  // the acquisition it is blocked on
};
struct Deadlock {
  std::string engine;
  Guarantee guarantee = Guarantee::kWitnessed;
  std::vector<DeadlockThread> cycle;
  Witness witness;
};

// A lock-order inversion (ThreadSanitizer's "lock-order-inversion (potential
// deadlock)"): locks taken in orders that form a cycle, by any threads, one
// thread included. Each step is the first acquisition of the cycle's next lock
// while holding the step's lock (DeadlockThread's fields: `blocked_acquire` is
// the acquisition that would block). No witness: it is not a predicted deadlock.
struct LockOrderInversion {
  std::string engine;
  std::vector<DeadlockThread> cycle;
};

// An atomicity violation: two accesses of one thread with an intruding access
// of another between them that no serial order explains.
struct AtomicityViolation {
  std::string engine;
  std::string pattern;  // "read-write-read", "write-write-read", ...
  EventRef local_first;
  EventRef remote;
  EventRef local_second;
  Witness witness;
};

// Counters an analysis reports about its own work (candidates built, checks
// run, ...), in the order it lists them: reports show them so a user can tell
// "nothing found" from "nothing tried".
struct AnalysisStats {
  std::string analysis;  // engine name, as in --analysis
  std::vector<std::pair<std::string, double>> counters;
};

struct Findings {
  std::vector<RaceResult> races;
  std::vector<Deadlock> deadlocks;
  std::vector<LockOrderInversion> lock_order;
  std::vector<AtomicityViolation> atomicity;
  // Atomicity candidates that no sound reordering of the run realises (every
  // check of theirs was infeasible: e.g. the intruder reads what it
  // overwrites, and would read another value earlier), one per (pattern, pc1,
  // pc, pc2) that `atomicity` does not report, with an empty witness. Not
  // findings: `seer fuzz` tries them on the program (docs/seqcheck.md).
  std::vector<AtomicityViolation> atomicity_candidates;
  std::vector<AnalysisStats> stats;

  // Moves `other`'s findings after these, kind by kind (the order one engine
  // after another would have added them). Next to the fields: a new kind of
  // finding is added here too, or parallel runs (--jobs) would drop it.
  void Append(Findings other);
};

}  // namespace seer::predictor
