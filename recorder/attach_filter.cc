#include "recorder/attach_filter.h"

namespace seer::recorder {

void AttachFilter::Acquired(uint32_t tid, uint64_t lock) {
  Held& held = held_[tid];
  for (auto& [l, count] : held)
    if (l == lock) {
      ++count;
      return;
    }
  held.push_back({lock, 1});
}

bool AttachFilter::Released(uint32_t tid, uint64_t lock) {
  Held& held = held_[tid];
  for (auto it = held.begin(); it != held.end(); ++it)
    if (it->first == lock) {
      if (--it->second == 0) held.erase(it);
      return true;
    }
  return false;
}

bool AttachFilter::Keep(const Event& e) {
  switch (e.kind) {
    case EventKind::kAcquire: Acquired(e.tid, e.object); return true;
    case EventKind::kCondWaitEnd:  // re-acquires its mutex (aux)
      Acquired(e.tid, e.aux);
      return true;
    case EventKind::kCondWaitBegin:  // releases its mutex; kept either way, as the eBPF attach does
      Released(e.tid, e.aux);
      return true;
    case EventKind::kRelease:
      if (!Released(e.tid, e.object)) {
        ++unmatched_releases_;
        return false;
      }
      return true;
    case EventKind::kAlloc: live_.insert(e.object); return true;
    case EventKind::kFree:
      if (live_.erase(e.object) == 0) {
        ++frees_before_attach_;
        return false;
      }
      return true;
    default: return true;
  }
}

}  // namespace seer::recorder
