// Race bookkeeping shared by the race engines, with the counting rules of
// specs/analyses.md: racy events (each access counted once), racy locations
// (distinct pcs of racy events), and race pairs (distinct unordered (pc, pc),
// each with one example event pair and the number of event pairs seen).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "predictor/common/flat_map.h"
#include "predictor/findings.h"

namespace seer::predictor {

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
  // accesses, so this lookup is on the hot path. A repeat only counts in its
  // slot: the RacePair (cold, 150 bytes) is written once, which keeps the
  // memory touched per race small when several engines run in one pass.
  struct Slot {
    uint64_t lo = 0, hi = 0;
    uint32_t pair = kNoPair;  // index in pairs_
    uint32_t repeats = 0;     // occurrences not yet added to pairs_[pair]
  };
  static constexpr uint32_t kNoPair = ~0u;
  void Grow();

  uint64_t racy_events_ = 0;
  uint64_t last_racy_index_ = ~0ull;
  FlatMap64<uint8_t> locations_;  // pcs of racy events (the keys are what counts)
  std::vector<Slot> slots_ = std::vector<Slot>(1024);
  std::vector<RacePair> pairs_;
};

}  // namespace seer::predictor
