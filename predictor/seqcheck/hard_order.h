// Hard orders: the happens-before edges every feasible reordering keeps, as
// opposed to lock order and observed writes, which a reordering may change.
// The deadlock filter streams vector clocks of them over the whole trace; the
// atomicity filter asks bounded reachability questions between nearby events.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "predictor/common/vector_clock.h"
#include "predictor/seqcheck/trace_model.h"

namespace seer::predictor::seqcheck {

// Calls fn(source) for each hard edge source -> i from another thread: the fork
// before a thread's first event, the child's last event before a join, and the
// signals recorded before a wait (cond signal -> wait return, sem post -> wait,
// futex wake -> wait, barrier arrivals -> departures; TraceModel::signals_before),
// and a window's carried acquires before each thread's first other event.
// Program order is the remaining hard order. Every hard edge goes forward in the
// trace, so a hard path between two events stays between them in the trace.
template <typename Fn>
void ForEachHardSource(const TraceModel& m, uint32_t i, Fn&& fn) {
  const Node& n = m.node(i);
  if (n.pos == 0 && m.fork_of(n.tid) != kNone) fn(m.fork_of(n.tid));
  if (n.flags & (kWaits | kAfterCarried))
    for (uint32_t s : m.signals_before(i)) fn(s);
  if ((n.flags & kJoins) && n.other != kNone) fn(n.other);
}

// Vector clocks of hard orders, computed in one pass over the trace in order:
// Before(i) for i = 0, 1, 2, ... A thread's clock leaves out its own entry
// (node i's is its position: every earlier node of its thread precedes it), so
// it holds only what the thread received over hard edges and is as wide as the
// highest thread it heard of: a thread forked by main and never joined costs
// one entry, not one per thread. Memory: at most threads x threads, plus one
// clock per signal node (a fork's clock is dropped once its child starts).
class HardClocks {
 public:
  explicit HardClocks(const TraceModel& model);

  // The clock of node i before it runs, but for i's own thread: per other
  // thread u, how many of u's events must precede i. Nodes must be passed in
  // trace order, each once.
  const VectorClock& Before(uint32_t i);
  // How many hard edges thread t received so far: Before(i) of two nodes of t
  // with the same count is the same clock.
  uint32_t received(uint32_t t) const { return received_[t]; }

 private:
  const TraceModel& m_;
  std::vector<VectorClock> clock_;                     // per thread, without its own entry
  std::vector<uint32_t> received_;                     // per thread: hard edges joined
  std::unordered_map<uint32_t, VectorClock> sources_;  // fork and signal node -> clock after it
  uint32_t last_ = kNone;
};

// Hard reachability between nodes near each other in the trace, by scans over
// the stretch between them: O(stretch) time, O(threads) memory.
class HardReach {
 public:
  explicit HardReach(const TraceModel& model);

  // Forward scan of the nodes after `from` up to `to` (trace order): afterwards
  // From(x) says whether `from` reaches x, for any x in [from, to].
  void ScanFrom(uint32_t from, uint32_t to);
  bool From(uint32_t x) const { return m_.node(x).pos >= first_[m_.node(x).tid]; }

  // Backward scan of the nodes before `to` down to `from`: afterwards To(x) says
  // whether x reaches `to`, for any x in [from, to].
  void ScanTo(uint32_t to, uint32_t from);
  bool To(uint32_t x) const { return m_.node(x).pos < end_[m_.node(x).tid]; }

 private:
  const TraceModel& m_;
  std::vector<uint32_t> first_;  // per thread: earliest position `from` reaches; UINT32_MAX: none
  std::vector<uint32_t> end_;    // per thread: latest position reaching `to`, plus one; 0: none
  std::vector<uint32_t> touched_first_, touched_end_;
};

}  // namespace seer::predictor::seqcheck
