// An event's time from a trace's clock samples (TraceInfo::clock): events
// between two samples are spread evenly over the time between them. A sample
// bounds when its events had happened, to within a drain round of the recorder
// (about a millisecond), so the times are that precise and no more; events of
// one drain round keep their trace order. Traces without samples have no times.
#pragma once

#include <cstdint>
#include <vector>

#include "seer/trace.h"

namespace seer::store {

class TraceClock {
 public:
  explicit TraceClock(const std::vector<ClockSample>& samples);

  bool has_times() const { return !samples_.empty(); }
  // Nanoseconds after the recording started that event `index` had happened
  // by, interpolated; events past the last sample get the last sample's time.
  // 0 for every event of a trace without samples.
  double TimeNs(uint64_t index) const;
  // The first event whose time is at or after `ns`: the start of a time window.
  uint64_t FirstEventAt(double ns) const;
  // Time of the trace's last sample (0 without samples).
  uint64_t span_ns() const { return samples_.empty() ? 0 : samples_.back().ns; }

 private:
  std::vector<ClockSample> samples_;  // with (0, 0) in front when there are any
};

}  // namespace seer::store
