// Counters one SeqCheck analysis keeps, for benchmarks, tests and --stats output.
#pragma once

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

}  // namespace seer::predictor::seqcheck
