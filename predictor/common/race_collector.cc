#include "predictor/common/race_collector.h"

#include <algorithm>

namespace seer::predictor {

namespace {
size_t Hash(uint64_t lo, uint64_t hi) { return (lo * 0x9E3779B97F4A7C15ull) ^ (hi * 0xC2B2AE3D27D4EB4Full); }
}  // namespace

void RaceCollector::AddPair(const EventRef& earlier, const EventRef& current) {
  const uint64_t lo = std::min(earlier.pc, current.pc), hi = std::max(earlier.pc, current.pc);
  const size_t mask = slots_.size() - 1;
  for (size_t i = Hash(lo, hi) & mask;; i = (i + 1) & mask) {
    Slot& s = slots_[i];
    if (s.pair == kNoPair) {
      s = Slot{lo, hi, static_cast<uint32_t>(pairs_.size())};
      pairs_.push_back(RacePair{earlier, current, 1});
      if (pairs_.size() * 2 > slots_.size()) Grow();
      return;
    }
    if (s.lo == lo && s.hi == hi) {
      if (s.repeats == ~0u) {  // about to wrap: move the count into the pair
        pairs_[s.pair].occurrences += s.repeats;
        s.repeats = 0;
      }
      ++s.repeats;
      return;
    }
  }
}

void RaceCollector::Grow() {
  std::vector<Slot> old(slots_.size() * 2);
  old.swap(slots_);
  const size_t mask = slots_.size() - 1;
  for (const Slot& s : old) {
    if (s.pair == kNoPair) continue;
    size_t i = Hash(s.lo, s.hi) & mask;
    while (slots_[i].pair != kNoPair) i = (i + 1) & mask;
    slots_[i] = s;
  }
}

void RaceCollector::AddRacyEvent(const EventRef& e) {
  if (e.index == last_racy_index_) return;
  last_racy_index_ = e.index;
  ++racy_events_;
  locations_[e.pc] = 1;
}

void RaceCollector::Fill(const std::string& engine, Guarantee guarantee, RaceResult* out) const {
  out->engine = engine;
  out->guarantee = guarantee;
  out->racy_events = racy_events_;
  out->racy_locations = locations_.size();
  out->pairs = pairs_;
  for (const Slot& s : slots_)
    if (s.pair != kNoPair) out->pairs[s.pair].occurrences += s.repeats;
  // Reports read best in trace order of the second event, then the first.
  std::sort(out->pairs.begin(), out->pairs.end(), [](const RacePair& a, const RacePair& b) {
    if (a.second.index != b.second.index) return a.second.index < b.second.index;
    return a.first.index < b.first.index;
  });
}

}  // namespace seer::predictor
