// JSON pieces shared by the reports and `seer info`: counts per event kind, and
// lost events per place and kind, keyed by EventKindName.
#pragma once

#include <array>
#include <cstdint>

#include <nlohmann/json.hpp>

#include "seer/trace.h"

namespace seer::predictor {

// {"read": n, ...}: every kind when `with_zeros`, else only those with a count.
nlohmann::json KindCountsJson(const std::array<uint64_t, kNumEventKinds>& counts, bool with_zeros);
// {"<place>": {"<kind>": n, ...}, ...}
nlohmann::json LostJson(const TraceCounters& counters);

}  // namespace seer::predictor
