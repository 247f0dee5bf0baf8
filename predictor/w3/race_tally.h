// The three counts of specs/analyses.md for one race engine: racy events (the later
// access of each reported pair, once), racy locations (their pcs) and race pairs
// (distinct unordered (pc, pc)). Kept small until a shared collector replaces it.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "predictor/findings.h"

namespace seer::w3 {

class RaceTally {
 public:
  // `first` comes earlier in the trace than `second`. Calls come in non-decreasing
  // order of `second.index`, so racy events are counted without remembering them.
  void Add(const EventRef& first, const EventRef& second);
  void Fill(const std::string& engine, Guarantee guarantee, RaceResult* out) const;

 private:
  struct PairHash {
    size_t operator()(const std::pair<uint64_t, uint64_t>& p) const {
      return std::hash<uint64_t>()(p.first * 0x9e3779b97f4a7c15ull ^ p.second);
    }
  };
  std::unordered_map<std::pair<uint64_t, uint64_t>, size_t, PairHash> pair_index_;
  std::vector<RacePair> pairs_;
  uint64_t racy_events_ = 0;
  uint64_t last_racy_ = UINT64_MAX;
  std::unordered_set<uint64_t> racy_pcs_;
};

}  // namespace seer::w3
