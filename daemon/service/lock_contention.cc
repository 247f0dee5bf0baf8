#include "daemon/service/lock_contention.h"

namespace seer::service {

void ContentionStats::Merge(const ContentionStats& o) {
  acquisitions += o.acquisitions;
  contended += o.contended;
  wait_seconds += o.wait_seconds;
  for (size_t i = 0; i < buckets.size(); ++i) buckets[i] += o.buckets[i];
}

void ContentionCounter::Add(const Event& e) {
  if (e.kind == EventKind::kLockWait) {
    pending_[e.tid] = {e.object, e.aux};
    return;
  }
  if (e.kind != EventKind::kAcquire) return;
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
  size_t b = 0;
  while (b < kWaitBucketBounds.size() && waited > kWaitBucketBounds[b]) ++b;
  s.buckets[b]++;
}

}  // namespace seer::service
