#include "predictor/w3/race_tally.h"

#include <algorithm>

namespace seer::w3 {

void RaceTally::Add(const EventRef& first, const EventRef& second) {
  if (second.index != last_racy_) {
    last_racy_ = second.index;
    ++racy_events_;
    racy_pcs_.insert(second.pc);
  }
  const auto key = std::minmax(first.pc, second.pc);
  auto [it, fresh] = pair_index_.emplace(key, pairs_.size());
  if (fresh)
    pairs_.push_back({first, second, 1});
  else
    ++pairs_[it->second].occurrences;
}

void RaceTally::Fill(const std::string& engine, Guarantee guarantee, RaceResult* out) const {
  out->engine = engine;
  out->guarantee = guarantee;
  out->racy_events = racy_events_;
  out->racy_locations = racy_pcs_.size();
  out->pairs = pairs_;
  std::sort(out->pairs.begin(), out->pairs.end(), [](const RacePair& a, const RacePair& b) {
    return a.second.index != b.second.index ? a.second.index < b.second.index : a.first.index < b.first.index;
  });
}

}  // namespace seer::w3
