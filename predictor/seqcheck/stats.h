// Counters one SeqCheck analysis keeps, for benchmarks, tests and --stats output.
#pragma once

#include <atomic>
#include <cstdint>

namespace seer::predictor::seqcheck {

struct SeqCheckStats {
  uint64_t candidates = 0;         // concrete candidates built
  uint64_t filtered = 0;           // rejected by the cheap filters before SeqCheck
  uint64_t forced = 0;             // of those, atomicity candidates whose intruder hard orders
                                   // put between the two accesses in every schedule
  uint64_t outside_region = 0;     // atomicity: pairs (e1, e2) within the window but not one region
                                   // (regions.h), left without looking for intruders
  uint64_t checks = 0;             // SeqCheck feasibility checks run
  uint64_t feasible = 0;           // checks that found a schedule
  uint64_t invalid_witnesses = 0;  // schedules the witness checker rejected: bugs in seer
  uint64_t window_events = 0;      // events reordered, summed over checks
  double check_seconds = 0;        // time inside the feasibility checks
};

// True when an analysis must run no further check: it has run `max_checks`,
// or another thread set `cancelled` (may be null) because its result will not
// be used (the windows decided before it spent every check).
inline bool ChecksSpent(const SeqCheckStats& stats, uint64_t max_checks, const std::atomic<bool>* cancelled) {
  return stats.checks >= max_checks || (cancelled != nullptr && cancelled->load(std::memory_order_relaxed));
}

}  // namespace seer::predictor::seqcheck
