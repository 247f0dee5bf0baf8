#include "predictor/seqcheck/races.h"

#include <string>

#include "predictor/seqcheck/witness.h"
#include "predictor/seqcheck/witness_checker.h"

namespace seer::seqcheck {

RaceConfirmation ConfirmRace(const TraceModel& m, FeasibilityChecker* feasibility, uint32_t a, uint32_t b,
                             SeqCheckStats* stats) {
  RaceConfirmation c;
  const Node &na = m.node(a), &nb = m.node(b);
  if (na.tid == nb.tid) return c;
  Query q;
  q.threads.push_back({na.tid, na.pos, true, true});
  q.threads.push_back({nb.tid, nb.pos, true, true});
  FeasibilityResult r = TimedCheck(feasibility, q, stats);
  if (!r.feasible) return c;
  c.witness = MakeWitness(m, r.schedule);
  WitnessChecker checker(m.events());
  const std::string what = "a race between events " + std::to_string(m.event(a).index) + " and " +
                           std::to_string(m.event(b).index);
  c.confirmed = AcceptWitness(checker.CheckRace(c.witness.schedule, EventRef::Of(m.event(a)), EventRef::Of(m.event(b))),
                              what, &c.witness, stats);
  return c;
}

std::vector<RaceConfirmation> ConfirmRaces(const TraceModel& m, const RaceResult& races,
                                           const FeasibilityOptions& options, SeqCheckStats* stats) {
  FeasibilityChecker feasibility(m, options);
  std::vector<RaceConfirmation> out;
  for (const RacePair& p : races.pairs) {
    const uint32_t a = m.NodeOfIndex(p.first.index), b = m.NodeOfIndex(p.second.index);
    out.push_back(a == kNone || b == kNone ? RaceConfirmation{} : ConfirmRace(m, &feasibility, a, b, stats));
  }
  return out;
}

}  // namespace seer::seqcheck
