// Deadlock prediction: cycles of the lock-order graph of any length, filtered
// cheaply (lock_graph.h), each surviving candidate decided by SeqCheck as "every
// cycle thread has run up to its blocked acquisition" (Algorithm 5 generalised to
// k threads), and each schedule found re-checked by the witness checker.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "predictor/findings.h"
#include "predictor/seqcheck/feasibility.h"
#include "predictor/seqcheck/stats.h"
#include "predictor/seqcheck/trace_model.h"

namespace seer::predictor::seqcheck {

struct DeadlockOptions {
  uint32_t max_cycle_length = 8;    // threads (= locks) in a cycle
  size_t max_lock_cycles = 10000;   // abstract lock cycles examined, shortest first
  uint32_t max_combinations = 256;  // per lock cycle: choices of (thread, locations) per edge
  uint32_t max_instances = 8;       // per combination: dynamic instances tried
  uint64_t max_checks = 20000;      // SeqCheck checks over the whole trace (shortest cycles first)
  FeasibilityOptions feasibility;
  const std::atomic<bool>* cancelled = nullptr;  // see ChecksSpent (stats.h)

  bool Stop(const SeqCheckStats& stats) const { return ChecksSpent(stats, max_checks, cancelled); }
};

// One deadlock per distinct cycle of (held acquire pc, blocked acquire pc);
// each with a validated witness. Witnesses the checker rejects are counted in
// stats->invalid_witnesses, printed to stderr, and not returned.
std::vector<Deadlock> PredictDeadlocks(const TraceModel& model, const DeadlockOptions& options, SeqCheckStats* stats);

}  // namespace seer::predictor::seqcheck
