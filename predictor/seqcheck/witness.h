// Turning a feasibility schedule into a finding's witness, and the loud report
// of a witness the independent checker rejects (a bug in seer, never silent).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "predictor/findings.h"
#include "predictor/seqcheck/feasibility.h"
#include "predictor/seqcheck/stats.h"
#include "predictor/seqcheck/trace_model.h"
#include "seer/status.h"

namespace seer::predictor::seqcheck {

// Runs one feasibility check, timing it into `stats`.
FeasibilityResult TimedCheck(FeasibilityChecker* checker, const Query& query, SeqCheckStats* stats);

// A feasible result's schedule as trace positions (Event::index), unvalidated.
Witness MakeWitness(const TraceModel& model, const FeasibilityResult& result);

// Marks `witness` validated when `verdict` is ok; otherwise prints the finding
// and the checker's reason to stderr and counts it. Returns verdict.ok().
bool AcceptWitness(const Status& verdict, const std::string& finding, Witness* witness, SeqCheckStats* stats);

}  // namespace seer::predictor::seqcheck
