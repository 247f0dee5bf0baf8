#include "store/trace_clock.h"

#include <algorithm>

namespace seer::store {

TraceClock::TraceClock(const std::vector<ClockSample>& samples) {
  if (samples.empty()) return;
  samples_.reserve(samples.size() + 1);
  samples_.push_back({0, 0});
  for (const ClockSample& s : samples)
    if (s.events > samples_.back().events) samples_.push_back(s);
}

double TraceClock::TimeNs(uint64_t index) const {
  if (samples_.empty()) return 0;
  // The first sample that covers the event (counts more events than its index).
  auto hi = std::upper_bound(samples_.begin(), samples_.end(), index,
                             [](uint64_t i, const ClockSample& s) { return i < s.events; });
  if (hi == samples_.end()) return static_cast<double>(samples_.back().ns);
  const ClockSample& lo = *(hi - 1);
  const double fraction = static_cast<double>(index - lo.events) / static_cast<double>(hi->events - lo.events);
  return static_cast<double>(lo.ns) + fraction * static_cast<double>(hi->ns - lo.ns);
}

uint64_t TraceClock::FirstEventAt(double ns) const {
  if (samples_.empty() || ns <= 0) return 0;
  // The first sample at or after ns; its events are spread over (lo.ns, hi.ns].
  auto hi = std::lower_bound(samples_.begin(), samples_.end(), ns,
                             [](const ClockSample& s, double t) { return static_cast<double>(s.ns) < t; });
  if (hi == samples_.end()) return samples_.back().events;
  const ClockSample& lo = *(hi - 1);
  const double span = static_cast<double>(hi->ns - lo.ns);
  const double fraction = span > 0 ? (ns - static_cast<double>(lo.ns)) / span : 0;
  uint64_t index = lo.events + static_cast<uint64_t>(fraction * static_cast<double>(hi->events - lo.events));
  // Rounding: step to the first event whose interpolated time is not before ns.
  while (index < hi->events && TimeNs(index) < ns) ++index;
  while (index > lo.events && TimeNs(index - 1) >= ns) --index;
  return index;
}

}  // namespace seer::store
