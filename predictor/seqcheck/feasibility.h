// The SeqCheck core (Cai et al., FSE 2021, §3): decides whether some feasible
// reordering of the trace runs given per-thread prefixes and given orders between
// events, and if so returns one as a schedule. Steps: the candidate feasible set
// (Algorithm 1: prefixes closed under observed writes, fork/join, signals and lock
// feasibility), the initial orders (program, observation, lock: Algorithm 2), their
// trace closure (Algorithm 3, with per-thread predecessor/successor queries over
// vector timestamps), and a linearisation that respects locks and observations
// (Algorithm 4). docs/seqcheck.md explains the choices.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "predictor/seqcheck/trace_model.h"

namespace seer::predictor::seqcheck {

// What one thread must (and may) run in the reordering.
struct ThreadBound {
  uint32_t tid = 0;
  uint32_t include = 0;       // the events at positions [0, include) run
  bool bounded = false;       // and none at position `include` or later
  bool next_enabled = false;  // the event at `include` must be reached (deadlock, race):
                              // the reads before it keep their observed writes
};

struct Query {
  std::vector<ThreadBound> threads;
  std::vector<std::pair<uint32_t, uint32_t>> order;  // (a, b): node a runs before node b
};

struct FeasibilityOptions {
  // Run the trace before the earliest event the query constrains exactly as
  // recorded and reorder only what follows. Much faster on long traces; may miss
  // reorderings that need to move an earlier event (never unsound).
  bool prefix_reduction = true;
  uint32_t max_rounds = 64;             // closure rounds before giving up
  uint64_t max_clock_cells = 1u << 28;  // window events x threads; larger windows give up
};

struct FeasibilityResult {
  bool feasible = false;
  // The schedule: nodes [0, prefix) in trace order (the fixed prefix, not
  // listed: it is most of a long trace), then `schedule`, node ids in the order
  // they run.
  uint32_t prefix = 0;
  std::vector<uint32_t> schedule;
  std::string reason;      // why not, when infeasible or undecided
  bool undecided = false;  // too large to decide: no answer, not "infeasible"
  uint32_t window = 0;     // events reordered (after the fixed prefix)
  uint32_t rounds = 0;     // closure rounds
};

class FeasibilityChecker {
 public:
  explicit FeasibilityChecker(const TraceModel& model, FeasibilityOptions options = {});
  FeasibilityResult Check(const Query& query);

 private:
  struct Window;
  bool ComputeCandidateSet(const Query& query, std::string* why);
  bool Raise(uint32_t t, uint32_t c);
  // Raises the cuts to what thread t's event at position p needs to run: the
  // joined thread's end, the signals recorded before a wait, the fork.
  bool RaiseNeeds(uint32_t t, uint32_t p);
  uint32_t NeedyLimit(uint32_t t) const;
  bool IsNeedyRead(uint32_t node) const;

  const TraceModel& m_;
  FeasibilityOptions opt_;
  // Per thread, the positions of the events RaiseNeeds has work for (joins,
  // waits, a window's first events after the carried acquires, a forked
  // thread's first event): the candidate set visits these, not every event.
  std::vector<std::vector<uint32_t>> needs_;
  // Every kStride nodes of the trace (kStride at least the threads), how many
  // nodes of each thread come before: checkpoints_[c * threads + t] for node
  // c * kStride. A query's split of each thread at its prefix searches
  // between two checkpoints, not a thread's whole list (a cache miss per
  // step in a million-event window: most of Check's own time).
  uint32_t stride_ = 0;
  std::vector<uint32_t> checkpoints_;
  // Per thread, its reads' observed writes in program order (an entry per
  // variable a read keeps, kNone observations left out): the candidate set's
  // scan of needy reads walks these, not every node with its accesses.
  struct ObservedWrite {
    uint32_t pos;  // of the read in its thread
    uint32_t obs;  // the write's node
  };
  std::vector<std::vector<ObservedWrite>> observed_;
  // Per query: nodes [0, prefix_) are the fixed prefix; per thread, [base, cut)
  // is reordered, [0, base) is its part of the fixed prefix.
  uint32_t prefix_ = 0;
  std::vector<uint32_t> base_, cut_, limit_, processed_, needy_done_;
  std::vector<bool> enabled_;
  std::vector<uint32_t> worklist_;
  std::vector<std::pair<uint32_t, uint32_t>> ordered_;  // transitive sequence order
};

}  // namespace seer::predictor::seqcheck
