// Race bookkeeping shared by the race engines, with the counting rules of
// specs/analyses.md: racy events (each access counted once), racy locations
// (distinct pcs of racy events), and race pairs (distinct unordered (pc, pc),
// each with one example event pair and the number of event pairs seen).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "predictor/findings.h"

namespace seer {

class RaceCollector {
 public:
  // `earlier` races with the access `current` (later in the trace).
  void AddPair(const EventRef& earlier, const EventRef& current);
  // `e`'s check failed; repeated calls for the same event count once.
  void AddRacyEvent(const EventRef& e);

  void Fill(const std::string& engine, Guarantee guarantee, RaceResult* out) const;

  uint64_t racy_events() const { return racy_events_; }
  size_t pair_count() const { return pairs_.size(); }

 private:
  struct PcPair {
    uint64_t lo, hi;
    bool operator==(const PcPair& o) const { return lo == o.lo && hi == o.hi; }
  };
  struct PcPairHash {
    size_t operator()(const PcPair& p) const { return p.lo * 0x9E3779B97F4A7C15ull ^ (p.hi + (p.hi << 17)); }
  };

  uint64_t racy_events_ = 0;
  uint64_t last_racy_index_ = ~0ull;
  std::unordered_set<uint64_t> locations_;
  std::unordered_map<PcPair, size_t, PcPairHash> pair_index_;
  std::vector<RacePair> pairs_;
};

}  // namespace seer
