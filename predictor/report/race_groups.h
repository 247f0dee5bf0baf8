// Race pairs of all engines grouped by their unordered pair of program counters,
// and what proves each group: a user reading a report must tell a race that can
// happen from one an over-approximating engine only predicts.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "predictor/findings.h"

namespace seer::predictor {

// Strongest first: reports order race pairs by it.
enum class RaceProof {
  kCaught,       // seer record --watch: a hardware watchpoint caught it in the recorded run
  kSoundEngine,  // an engine that reports only real races (SHB) reports it
  kWitnessed,    // --confirm-races: SeqCheck found a validated schedule reaching both accesses
  kFirstRace,    // the first race of an engine whose first race is real (HB; WCP: or a deadlock is)
  kPredicted,    // only predicted: WCP or HB beyond their first race, W3, lockset
};
// "caught", "sound-engine", "witnessed", "first-race", "predicted".
const char* RaceProofName(RaceProof proof);

// One race pair as every engine that found it reports it (same unordered pcs).
struct RaceGroup {
  const RacePair* pair = nullptr;          // as the first of those engines reports it
  std::vector<const RaceResult*> engines;  // in the order of findings.races
  RaceProof proof = RaceProof::kPredicted;
  const RaceResult* proof_engine = nullptr;  // kSoundEngine, kFirstRace: the engine that proves it
  const RacePair* confirmation = nullptr;    // the engine's pair SeqCheck decided (confirmed set), if any
};

// Every distinct race pair, the proven first (by the order of RaceProof), then
// in the order the engines report them (trace order).
std::vector<RaceGroup> GroupRaces(const Findings& findings);

// One sentence: "proven: ..." or "predicted only: ...", saying which engine or
// check stands behind the pair.
std::string ProofText(const RaceGroup& group);

// The group of any engine's race pair, for writers that go engine by engine.
class RaceIndex {
 public:
  explicit RaceIndex(const Findings& findings);
  const RaceGroup& Of(const RacePair& pair) const;
  // The names of the engines that report the pair's unordered (pc, pc).
  std::vector<std::string> Engines(const RacePair& pair) const;
  const std::vector<RaceGroup>& groups() const { return groups_; }
  // One engine's pairs, the proven first, then in the engine's (trace) order.
  std::vector<const RacePair*> ProvenFirst(const RaceResult& result) const;

 private:
  std::vector<RaceGroup> groups_;
  std::map<std::pair<uint64_t, uint64_t>, size_t> by_key_;
};

}  // namespace seer::predictor
