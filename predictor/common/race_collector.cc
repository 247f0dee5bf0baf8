#include "predictor/common/race_collector.h"

#include <algorithm>

namespace seer {

void RaceCollector::AddPair(const EventRef& earlier, const EventRef& current) {
  const PcPair key{std::min(earlier.pc, current.pc), std::max(earlier.pc, current.pc)};
  auto [it, inserted] = pair_index_.emplace(key, pairs_.size());
  if (inserted) {
    pairs_.push_back(RacePair{earlier, current, 1});
  } else {
    ++pairs_[it->second].occurrences;
  }
}

void RaceCollector::AddRacyEvent(const EventRef& e) {
  if (e.index == last_racy_index_) return;
  last_racy_index_ = e.index;
  ++racy_events_;
  locations_.insert(e.pc);
}

void RaceCollector::Fill(const std::string& engine, Guarantee guarantee, RaceResult* out) const {
  out->engine = engine;
  out->guarantee = guarantee;
  out->racy_events = racy_events_;
  out->racy_locations = locations_.size();
  out->pairs = pairs_;
  // Reports read best in trace order of the second event, then the first.
  std::sort(out->pairs.begin(), out->pairs.end(), [](const RacePair& a, const RacePair& b) {
    if (a.second.index != b.second.index) return a.second.index < b.second.index;
    return a.first.index < b.first.index;
  });
}

}  // namespace seer
