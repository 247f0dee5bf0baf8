// Race bookkeeping shared by the race engines, with the counting rules of
// specs/analyses.md: racy events (each access counted once), racy locations
// (distinct pcs of racy events), and race pairs (distinct unordered (pc, pc),
// each with one example event pair and the number of event pairs seen).
#pragma once

#include <cstdint>
#include <string>
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
  // Open addressing over (lo pc, hi pc): racy traces call AddPair for most
  // accesses, so this lookup is on the hot path.
  struct Slot {
    uint64_t lo = 0, hi = 0;
    uint32_t pair = kNoPair;  // index in pairs_
  };
  static constexpr uint32_t kNoPair = ~0u;
  void Grow();

  uint64_t racy_events_ = 0;
  uint64_t last_racy_index_ = ~0ull;
  std::unordered_set<uint64_t> locations_;
  std::vector<Slot> slots_ = std::vector<Slot>(1024);
  std::vector<RacePair> pairs_;
};

}  // namespace seer
