// Lock contention in one window, from its events: per lock and acquiring call
// site, the acquisitions, the contended ones (a kLockWait event precedes
// their kAcquire), a histogram of how long those waited, and a histogram of
// how long the lock was held (a kRelease's aux, measured by the runtime; the
// site is that of the acquire, or of the cond wait whose return re-took it).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <utility>

#include "seer/event.h"

namespace seer::service {

// Upper bounds of the wait- and hold-time histograms' buckets, in seconds
// (Prometheus `le`); a last bucket, +Inf, takes the rest.
inline constexpr std::array<double, 8> kWaitBucketBounds = {1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 0.1, 1, 10};

// Not cumulative: [i] counts values in (bound[i-1], bound[i]]; the last entry
// counts those above every bound.
using Buckets = std::array<uint64_t, kWaitBucketBounds.size() + 1>;

struct ContentionStats {
  uint64_t acquisitions = 0;
  uint64_t contended = 0;  // acquisitions that waited (had a kLockWait)
  double wait_seconds = 0;
  Buckets buckets{};       // of the waits
  uint64_t held = 0;       // releases whose hold time was measured
  double hold_seconds = 0;
  Buckets hold_buckets{};

  void Merge(const ContentionStats& o);
};

class ContentionCounter {
 public:
  // Events in trace order.
  void Add(const Event& e);

  // Keyed by (lock, call site pc of the acquire).
  const std::map<std::pair<uint64_t, uint64_t>, ContentionStats>& sites() const { return sites_; }

 private:
  std::map<std::pair<uint64_t, uint64_t>, ContentionStats> sites_;
  // Per thread, the wait its next acquire of that lock belongs to: (lock, ns).
  std::map<uint32_t, std::pair<uint64_t, uint64_t>> pending_;
  // Per (thread, lock) held, the pc of the acquire (or cond-wait return) that took it.
  std::map<std::pair<uint32_t, uint64_t>, uint64_t> held_at_;
};

}  // namespace seer::service
