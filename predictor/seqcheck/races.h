// SeqCheck as a stronger check of the race engines' pairs (--confirm-races): a
// pair is confirmed when some feasible reordering reaches both accesses at once,
// i.e. ends with each of them as the next event of its thread (the paper's race
// encoding: the two can run consecutively), with a validated witness.
#pragma once

#include <vector>

#include "predictor/findings.h"
#include "predictor/seqcheck/feasibility.h"
#include "predictor/seqcheck/stats.h"
#include "predictor/seqcheck/trace_model.h"
#include "predictor/seqcheck/witness_checker.h"

namespace seer::predictor::seqcheck {

struct RaceConfirmation {
  bool confirmed = false;
  Witness witness;  // when confirmed: validated, ends with both accesses enabled
};

// Decides one pair of events (node ids). Not confirmed does not mean "no race":
// SeqCheck is complete only for two threads. `checker` validates the witness
// (one for every pair of the model: it is built from the whole trace).
RaceConfirmation ConfirmRace(const TraceModel& model, FeasibilityChecker* feasibility, LazyWitnessChecker* checker,
                             uint32_t a, uint32_t b, SeqCheckStats* stats);
// The same, with a checker of its own (for a single pair).
RaceConfirmation ConfirmRace(const TraceModel& model, FeasibilityChecker* feasibility, uint32_t a, uint32_t b,
                             SeqCheckStats* stats);

// The driver's post-pass for --confirm-races: sets `confirmed` (and, when true,
// `confirmation`) on every pair of every race engine in `findings`. A pair two
// engines both report is decided once.
void ConfirmRacePairs(const TraceModel& model, const FeasibilityOptions& options, Findings* findings,
                      SeqCheckStats* stats);

}  // namespace seer::predictor::seqcheck
