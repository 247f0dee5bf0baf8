#include "predictor/findings.h"

#include <set>

namespace seer::predictor {

const char* GuaranteeName(Guarantee g) {
  switch (g) {
    case Guarantee::kFirstIsReal: return "first-race-real";
    case Guarantee::kAllReal: return "sound";
    case Guarantee::kComplete: return "complete";
    case Guarantee::kHeuristic: return "heuristic";
    case Guarantee::kWitnessed: return "witnessed";
    case Guarantee::kCaught: return "caught";
  }
  return "unknown";
}

uint64_t DistinctPcs(const std::vector<RacePair>& pairs) {
  std::set<uint64_t> pcs;
  for (const RacePair& p : pairs) {
    pcs.insert(p.first.pc);
    if (p.second.tid != kThreadNotSeen) pcs.insert(p.second.pc);
  }
  return pcs.size();
}

const char* GuaranteeDescription(Guarantee g) {
  switch (g) {
    case Guarantee::kFirstIsReal:
      return "the first race reported is a real race (or a real deadlock); later ones may not be";
    case Guarantee::kAllReal: return "every race reported can happen in a reordering of this run";
    case Guarantee::kComplete:
      return "misses no predictable race; may report races that cannot happen (sound with two threads)";
    case Guarantee::kHeuristic: return "lockset discipline violations: may report false races and miss real ones";
    case Guarantee::kWitnessed: return "each finding comes with a schedule re-checked by an independent validator";
    case Guarantee::kCaught:
      return "caught in the act: in the recorded run another thread touched the bytes (a watchpoint named it) or "
             "changed their value (writer not seen) while the first was held at its access; real by construction, "
             "and only what the samples happened to cover";
  }
  return "";
}

}  // namespace seer::predictor
