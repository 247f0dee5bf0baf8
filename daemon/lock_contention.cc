#include "daemon/lock_contention.h"

#include <algorithm>
#include <tuple>

namespace seer::daemon {

namespace {

void AddToBuckets(double seconds, Buckets* buckets) {
  size_t b = 0;
  while (b < kWaitBucketBounds.size() && seconds > kWaitBucketBounds[b]) ++b;
  (*buckets)[b]++;
}

}  // namespace

void ContentionStats::Merge(const ContentionStats& o) {
  acquisitions += o.acquisitions;
  contended += o.contended;
  wait_seconds += o.wait_seconds;
  held += o.held;
  hold_seconds += o.hold_seconds;
  for (size_t i = 0; i < buckets.size(); ++i) {
    buckets[i] += o.buckets[i];
    hold_buckets[i] += o.hold_buckets[i];
  }
}

void ContentionCounter::Add(const Event& e) {
  switch (e.kind) {
    case EventKind::kLockWait: pending_[e.tid] = {e.object, e.aux}; return;
    case EventKind::kCondWaitEnd:  // re-takes its mutex (aux) at the wait's call site
      held_at_[{e.tid, e.aux}] = e.pc;
      return;
    case EventKind::kRelease: {
      auto it = held_at_.find({e.tid, e.object});
      if (it == held_at_.end()) return;  // taken before the window began
      const uint64_t site = it->second;
      held_at_.erase(it);
      if (e.aux == 0) return;  // not measured
      ContentionStats& s = sites_[{e.object, site}];
      s.held++;
      s.hold_seconds += e.aux * 1e-9;
      AddToBuckets(e.aux * 1e-9, &s.hold_buckets);
      return;
    }
    case EventKind::kAcquire: break;
    default: return;
  }
  held_at_[{e.tid, e.object}] = e.pc;
  ContentionStats& s = sites_[{e.object, e.pc}];
  s.acquisitions++;
  auto it = pending_.find(e.tid);
  // The wait belongs to this acquire only when it names the same lock (a
  // window may begin between a wait and its acquire of another lock).
  if (it == pending_.end() || it->second.first != e.object) return;
  const double waited = it->second.second * 1e-9;
  pending_.erase(it);
  s.contended++;
  s.wait_seconds += waited;
  AddToBuckets(waited, &s.buckets);
}

std::vector<std::pair<ContentionCounter::Key, ContentionStats>> ContentionCounter::Folded(size_t keep) const {
  std::vector<std::pair<Key, ContentionStats>> all(sites_.begin(), sites_.end());
  if (all.size() <= keep) return all;
  auto hotter = [](const std::pair<Key, ContentionStats>& a, const std::pair<Key, ContentionStats>& b) {
    // Ties broken by the key, so that the same counts keep the same pairs.
    return std::tie(b.second.wait_seconds, b.second.hold_seconds, b.second.acquisitions, a.first) <
           std::tie(a.second.wait_seconds, a.second.hold_seconds, a.second.acquisitions, b.first);
  };
  std::nth_element(all.begin(), all.begin() + keep, all.end(), hotter);
  std::unordered_map<uint64_t, ContentionStats> other;  // by site
  for (size_t i = keep; i < all.size(); ++i) other[all[i].first.second].Merge(all[i].second);
  all.resize(keep);
  for (const auto& [site, stats] : other) all.push_back({{kOtherLocks, site}, stats});
  return all;
}

}  // namespace seer::daemon
