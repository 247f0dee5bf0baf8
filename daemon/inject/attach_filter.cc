#include "daemon/inject/attach_filter.h"

namespace seer::daemon {

bool AttachFilter::Keep(const Event& e) {
  switch (e.kind) {
    case EventKind::kAcquire:
    case EventKind::kCondWaitEnd:  // re-acquires its mutex (aux)
      ++held_[{e.tid, e.kind == EventKind::kAcquire ? e.object : e.aux}];
      return true;
    case EventKind::kCondWaitBegin: {  // releases its mutex; kept either way, as the eBPF attach does
      auto it = held_.find({e.tid, e.aux});
      if (it != held_.end() && --it->second == 0) held_.erase(it);
      return true;
    }
    case EventKind::kRelease: {
      auto it = held_.find({e.tid, e.object});
      if (it == held_.end()) {
        ++unmatched_releases_;
        return false;
      }
      if (--it->second == 0) held_.erase(it);
      return true;
    }
    case EventKind::kAlloc:
      live_.insert(e.object);
      return true;
    case EventKind::kFree:
      if (live_.erase(e.object) == 0) {
        ++frees_before_attach_;
        return false;
      }
      return true;
    default:
      return true;
  }
}

}  // namespace seer::daemon
