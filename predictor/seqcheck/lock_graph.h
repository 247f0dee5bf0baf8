// The lock-order graph: an edge l -> m for every blocking acquisition of m by a
// thread holding l, labelled with the two acquire events (a trylock or timed lock
// is never a blocked request, but the lock it got may be the held l). Its cycles
// of distinct threads are the deadlock candidates; the cheap filters (conflicting
// modes, locks two cycle threads would hold at once such as a gate lock, hard
// happens-before orders from fork/join and signals) run here, before SeqCheck
// decides the rest.
#pragma once

#include <cstdint>
#include <vector>

#include "predictor/seqcheck/trace_model.h"

namespace seer::predictor::seqcheck {

// One dynamic edge: thread `tid` holds the section acquired at `held` (by any
// kind of acquisition) and acquires another lock at `request`, a call that can
// block forever.
struct LockEdge {
  uint32_t tid = 0;
  uint32_t held = 0;     // acquire node of the held lock
  uint32_t request = 0;  // acquire node of the requested lock
  uint32_t open = 0;     // the sections open at the request: LockGraph's list `open`
};

// Edges between the same locks with the same program locations (from any
// thread), in trace order.
struct LockEdgeClass {
  uint32_t from_lock = 0;
  uint32_t to_lock = 0;
  std::vector<LockEdge> edges;
};

class LockGraph {
 public:
  explicit LockGraph(const TraceModel& model);

  const std::vector<LockEdgeClass>& classes() const { return classes_; }
  // Classes of the edges from_lock -> to_lock.
  const std::vector<uint32_t>& ClassesBetween(uint32_t from_lock, uint32_t to_lock) const;

  // Simple cycles of locks l0 -> l1 -> ... -> l0 (each as the list of its locks,
  // smallest lock first), of 2..max_length locks, at most `limit` of them.
  std::vector<std::vector<uint32_t>> LockCycles(uint32_t max_length, size_t limit) const;

  // A concrete candidate (one edge per cycle step, distinct threads) passes the
  // cheap filters: each request conflicts with the next thread's held mode, no
  // lock is held by two cycle threads at once in conflicting modes (gate locks),
  // and no request happens-before another thread's request by hard orders.
  bool PassesFilters(const std::vector<LockEdge>& cycle) const;

 private:
  const TraceModel& m_;
  std::vector<LockEdgeClass> classes_;
  std::vector<std::vector<uint32_t>> successors_;                                 // lock -> locks it has edges to
  std::vector<std::vector<std::pair<uint32_t, std::vector<uint32_t>>>> between_;  // [from] -> (to, classes)
  // Hard-order timestamp of each request, before it runs: per other thread, the
  // number of its events that must precede it (fork/join, signals). A thread's
  // requests between two hard edges it receives share one, and it keeps only
  // the nonzero entries: memory grows with the clocks' contents, not with
  // requests x threads (gigabytes for a generated trace of 10,000 threads).
  uint32_t HardBefore(uint32_t request, uint32_t t) const;
  // Per request with an edge, the sections its thread holds there, as (lock,
  // read mode): open_entries_[open_begin_[k] .. open_begin_[k + 1]) for the
  // edges' `open` k. The constructor has them at hand; asking the model's
  // interval tree again per candidate was a tenth of the engine's time (cache
  // misses down a tree of a million-event window).
  std::vector<uint32_t> open_begin_;
  std::vector<std::pair<uint32_t, bool>> open_entries_;
  std::vector<uint32_t> request_clock_;                       // node -> its clock's index; kNone if not a request
  std::vector<uint32_t> clock_begin_;                         // clock index -> first entry in clock_entries_
  std::vector<std::pair<uint32_t, uint32_t>> clock_entries_;  // (thread, count), ascending by thread
  std::vector<uint32_t> empty_;
};

}  // namespace seer::predictor::seqcheck
