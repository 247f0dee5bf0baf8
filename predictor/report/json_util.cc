#include "predictor/report/json_util.h"

#include <string>

namespace seer::predictor {

nlohmann::json KindCountsJson(const std::array<uint64_t, kNumEventKinds>& counts, bool with_zeros) {
  nlohmann::json out = nlohmann::json::object();
  for (int k = 0; k < kNumEventKinds; ++k)
    if (with_zeros || counts[k]) out[std::string(EventKindName(static_cast<EventKind>(k)))] = counts[k];
  return out;
}

nlohmann::json LostJson(const TraceCounters& counters) {
  nlohmann::json lost = nlohmann::json::object();
  for (const auto& [where, counts] : counters.lost) lost[where] = KindCountsJson(counts, false);
  return lost;
}

}  // namespace seer::predictor
