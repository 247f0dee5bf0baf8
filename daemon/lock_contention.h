// Lock contention in one window, from its events: per lock and acquiring call
// site, the acquisitions, the contended ones (a kLockWait event precedes
// their kAcquire), a histogram of how long those waited, and a histogram of
// how long the lock was held (a kRelease's aux, measured by the runtime; the
// site is that of the acquire, or of the cond wait whose return re-took it).
#pragma once

#include <array>
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "seer/event.h"

namespace seer::daemon {

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
  Buckets buckets{};  // of the waits
  uint64_t held = 0;  // releases whose hold time was measured
  double hold_seconds = 0;
  Buckets hold_buckets{};

  void Merge(const ContentionStats& o);
};

// The pairs one window hands on. A service with many locks at each site makes
// series without bound otherwise (memcached: 8,192 item locks at a few sites,
// 17,000 lock/site pairs a window and 30 series each, against Prometheus's
// advice on label cardinality), and labelling them all was a tenth of the
// window's analysis. So the pairs that waited longest (then were held
// longest, then taken most) keep their own series, and the rest of a site's
// locks are folded into one pair under kOtherLocks: the totals stay exact.
inline constexpr size_t kContentionPairsPerWindow = 64;
inline constexpr uint64_t kOtherLocks = ~uint64_t{0};       // the lock of a site's folded pair
inline constexpr char kOtherLocksName[] = "(other locks)";  // its `lock` label
// The service keeps at most this many (lock, site) series over its life; a
// pair first seen after that goes to its site's kOtherLocksName series (a
// series, once there, keeps counting, as Prometheus counters must).
inline constexpr size_t kMaxContentionSeries = 1024;

struct PairHash {
  size_t operator()(const std::pair<uint64_t, uint64_t>& p) const {
    return std::hash<uint64_t>()(p.first * 0x9E3779B97F4A7C15ull ^ p.second);
  }
};

class ContentionCounter {
 public:
  using Key = std::pair<uint64_t, uint64_t>;  // (lock, call site pc of the acquire)

  // Events in trace order.
  void Add(const Event& e);

  const std::unordered_map<Key, ContentionStats, PairHash>& sites() const { return sites_; }

  // The `keep` hottest pairs as they are, then per site the rest merged under
  // (kOtherLocks, site); in no particular order.
  std::vector<std::pair<Key, ContentionStats>> Folded(size_t keep) const;

 private:
  std::unordered_map<Key, ContentionStats, PairHash> sites_;
  // Per thread, the wait its next acquire of that lock belongs to: (lock, ns).
  std::unordered_map<uint32_t, std::pair<uint64_t, uint64_t>> pending_;
  // Per (thread, lock) held, the pc of the acquire (or cond-wait return) that took it.
  std::unordered_map<Key, uint64_t, PairHash> held_at_;
};

}  // namespace seer::daemon
