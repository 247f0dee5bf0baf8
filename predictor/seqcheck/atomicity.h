// Atomicity-violation prediction: two consecutive accesses e1, e2 of one thread
// to a variable, at most `window` events apart in that thread and in one region
// (regions.h: a region its programmer means to be atomic), and an access e of
// another thread that makes e1 e e2 unserializable (read-write-read,
// write-write-read, read-write-write, write-read-write). SeqCheck decides each
// candidate as the sequence <e1, e, e2> with e1's thread stopping at e2 and e's
// at e; each schedule found is re-checked by the witness checker. A candidate
// whose intruder hard orders (program order, fork/join, signal/wait) put between
// e1 and e2 in every schedule is dropped first: that interleaving is the
// program's design, not a violation (docs/seqcheck.md).
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "predictor/findings.h"
#include "predictor/seqcheck/feasibility.h"
#include "predictor/seqcheck/stats.h"
#include "predictor/seqcheck/trace_model.h"

namespace seer::predictor::seqcheck {

struct AtomicityOptions {
  uint64_t window = 1000;          // max events of e1's thread between e1 and e2
  uint64_t intruder_distance = 0;  // max trace distance of e from [e1, e2]; 0: the window
  uint32_t max_tries = 4;          // SeqCheck checks per (pattern, pc1, pc, pc2)
  uint64_t max_checks = 1u << 20;  // over the whole trace
  bool drop_forced = true;         // drop intruders hard orders force between e1 and e2
  bool regions = true;             // only pairs in one region (regions.h); false: any pair in the
                                   // window, as before issue #34 (for comparisons)
  FeasibilityOptions feasibility;
  const std::atomic<bool>* cancelled = nullptr;  // see ChecksSpent (stats.h)

  bool Stop(const SeqCheckStats& stats) const { return ChecksSpent(stats, max_checks, cancelled); }
};

// One violation per distinct (pattern, pc of e1, pc of e, pc of e2), each with a
// validated witness; rejected witnesses go to stderr and stats->invalid_witnesses.
// `candidates` (may be null) receives, in the order first checked, one instance
// of each key whose every check was infeasible: no sound reordering of this run
// realises it, but a run steered by `seer fuzz` may (Findings::atomicity_candidates).
std::vector<AtomicityViolation> PredictAtomicityViolations(const TraceModel& model, const AtomicityOptions& options,
                                                           SeqCheckStats* stats,
                                                           std::vector<AtomicityViolation>* candidates = nullptr);

}  // namespace seer::predictor::seqcheck
