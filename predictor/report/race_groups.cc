#include "predictor/report/race_groups.h"

#include <fmt/format.h>

#include <algorithm>

namespace seer::predictor {
namespace {

std::pair<uint64_t, uint64_t> PcKey(const RacePair& p) {
  return {std::min(p.first.pc, p.second.pc), std::max(p.first.pc, p.second.pc)};
}

// What one engine's report of the pair proves on its own.
RaceProof EngineProof(const RaceResult& r, const RacePair& p) {
  if (r.guarantee == Guarantee::kCaught) return RaceProof::kCaught;
  if (r.guarantee == Guarantee::kAllReal) return RaceProof::kSoundEngine;
  // Pairs are in trace order of their second access: the first is the first race.
  if (r.guarantee == Guarantee::kFirstIsReal && &p == &r.pairs.front()) return RaceProof::kFirstRace;
  return RaceProof::kPredicted;
}

}  // namespace

const char* RaceProofName(RaceProof proof) {
  switch (proof) {
    case RaceProof::kCaught: return "caught";
    case RaceProof::kSoundEngine: return "sound-engine";
    case RaceProof::kWitnessed: return "witnessed";
    case RaceProof::kFirstRace: return "first-race";
    case RaceProof::kPredicted: return "predicted";
  }
  return "predicted";
}

std::vector<RaceGroup> GroupRaces(const Findings& findings) {
  std::vector<RaceGroup> groups;
  std::map<std::pair<uint64_t, uint64_t>, size_t> by_key;
  for (const RaceResult& r : findings.races) {
    for (const RacePair& p : r.pairs) {
      auto [it, fresh] = by_key.emplace(PcKey(p), groups.size());
      if (fresh) groups.push_back({&p, {}});
      RaceGroup& g = groups[it->second];
      if (g.engines.empty() || g.engines.back() != &r) g.engines.push_back(&r);
      // SeqCheck decides a pair once for all engines; prefer a confirmed copy all the same.
      if (p.confirmed && (g.confirmation == nullptr || (*p.confirmed && !*g.confirmation->confirmed)))
        g.confirmation = &p;
      RaceProof proof = EngineProof(r, p);
      if (p.confirmed.value_or(false) && proof > RaceProof::kWitnessed) proof = RaceProof::kWitnessed;
      if (proof < g.proof) {
        g.proof = proof;
        g.proof_engine = proof == RaceProof::kWitnessed ? nullptr : &r;
      }
    }
  }
  std::stable_sort(groups.begin(), groups.end(),
                   [](const RaceGroup& a, const RaceGroup& b) { return a.proof < b.proof; });
  return groups;
}

std::string ProofText(const RaceGroup& g) {
  switch (g.proof) {
    case RaceProof::kCaught:
      return fmt::format(
          "proven: caught in the act ({}){}",
          g.pair->second.tid == kThreadNotSeen ? "the value changed while the access was held" : "watchpoint",
          g.pair->occurrences > 1 ? fmt::format(", {} times", g.pair->occurrences) : "");
    case RaceProof::kSoundEngine:
      return fmt::format("proven: reported by {}, which reports only races that can happen", g.proof_engine->engine);
    case RaceProof::kWitnessed:
      return fmt::format("proven: witnessed by SeqCheck (validated schedule of {} events)",
                         g.confirmation->confirmation.schedule.size());
    case RaceProof::kFirstRace:
      if (g.proof_engine->engine == "hb") return "proven: the first race hb reports, which is always real";
      return fmt::format("proven: the first race {} reports, which is real unless the run can deadlock first",
                         g.proof_engine->engine);
    case RaceProof::kPredicted: break;
  }
  std::string engines;
  for (const RaceResult* r : g.engines) {
    std::string why = GuaranteeName(r->guarantee);
    if (r->guarantee == Guarantee::kFirstIsReal) why = "beyond its first race";
    engines += fmt::format("{}{} ({})", engines.empty() ? "" : ", ", r->engine, why);
  }
  std::string check = "--confirm-races looks for a witness";
  if (g.confirmation != nullptr) check = "SeqCheck found no witness";
  return fmt::format("predicted only: {}; {}", engines, check);
}

RaceIndex::RaceIndex(const Findings& findings) : groups_(GroupRaces(findings)) {
  for (size_t i = 0; i < groups_.size(); ++i) by_key_[PcKey(*groups_[i].pair)] = i;
}

const RaceGroup& RaceIndex::Of(const RacePair& pair) const { return groups_[by_key_.at(PcKey(pair))]; }

std::vector<const RacePair*> RaceIndex::ProvenFirst(const RaceResult& result) const {
  std::vector<const RacePair*> pairs;
  for (const RacePair& p : result.pairs) pairs.push_back(&p);
  std::stable_sort(pairs.begin(), pairs.end(),
                   [&](const RacePair* a, const RacePair* b) { return Of(*a).proof < Of(*b).proof; });
  return pairs;
}

std::vector<std::string> RaceIndex::Engines(const RacePair& pair) const {
  std::vector<std::string> names;
  for (const RaceResult* r : Of(pair).engines) names.push_back(r->engine);
  return names;
}

}  // namespace seer::predictor
