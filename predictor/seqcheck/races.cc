#include "predictor/seqcheck/races.h"

#include <map>
#include <string>
#include <utility>

#include "predictor/seqcheck/witness.h"
#include "predictor/seqcheck/witness_checker.h"

namespace seer::predictor::seqcheck {

RaceConfirmation ConfirmRace(const TraceModel& m, FeasibilityChecker* feasibility, LazyWitnessChecker* checker,
                             uint32_t a, uint32_t b, SeqCheckStats* stats) {
  RaceConfirmation c;
  const Node &na = m.node(a), &nb = m.node(b);
  if (na.tid == nb.tid) return c;
  Query q;
  q.threads.push_back({na.tid, na.pos, true, true});
  q.threads.push_back({nb.tid, nb.pos, true, true});
  FeasibilityResult r = TimedCheck(feasibility, q, stats);
  if (!r.feasible) return c;
  c.witness = MakeWitness(m, r);
  const std::string what =
      "a race between events " + std::to_string(m.event(a).index) + " and " + std::to_string(m.event(b).index);
  c.confirmed =
      AcceptWitness(checker->Get().CheckRace(c.witness.schedule, EventRef::Of(m.event(a)), EventRef::Of(m.event(b))),
                    what, &c.witness, stats);
  return c;
}

RaceConfirmation ConfirmRace(const TraceModel& m, FeasibilityChecker* feasibility, uint32_t a, uint32_t b,
                             SeqCheckStats* stats) {
  LazyWitnessChecker checker(m.events());
  return ConfirmRace(m, feasibility, &checker, a, b, stats);
}

void ConfirmRacePairs(const TraceModel& m, const FeasibilityOptions& options, Findings* findings,
                      SeqCheckStats* stats) {
  FeasibilityChecker feasibility(m, options);
  LazyWitnessChecker checker(m.events());
  std::map<std::pair<uint64_t, uint64_t>, RaceConfirmation> decided;  // by event indices
  for (RaceResult& r : findings->races) {
    for (RacePair& p : r.pairs) {
      auto key = std::make_pair(p.first.index, p.second.index);
      auto it = decided.find(key);
      if (it == decided.end()) {
        const uint32_t a = m.NodeOfIndex(p.first.index), b = m.NodeOfIndex(p.second.index);
        RaceConfirmation c =
            a == kNone || b == kNone ? RaceConfirmation{} : ConfirmRace(m, &feasibility, &checker, a, b, stats);
        it = decided.emplace(key, std::move(c)).first;
      }
      p.confirmed = it->second.confirmed;
      if (it->second.confirmed) p.confirmation = it->second.witness;
    }
  }
}

}  // namespace seer::predictor::seqcheck
