#include "predictor/seqcheck/trace_windows.h"

#include <algorithm>

#include "predictor/seqcheck/huge_pages.h"

namespace seer::predictor::seqcheck {

void TraceWindows::Track(const Event& e) {
  // The mutex a cond wait releases at its begin and holds again at its end.
  uint64_t acquired = 0, released = 0;
  bool acquires = false, releases = false;
  switch (e.kind) {
    case EventKind::kAcquire:
      acquires = true;
      acquired = e.object;
      break;
    case EventKind::kRelease:
      releases = true;
      released = e.object;
      break;
    case EventKind::kCondWaitBegin:
      releases = true;
      released = e.aux;
      break;
    case EventKind::kCondWaitEnd:
      acquires = true;
      acquired = e.aux;
      break;
    default: return;
  }
  std::vector<Held>& held = HeldBy(e.tid);
  auto find = [&](uint64_t lock) {
    auto it = held.end();
    while (it != held.begin())
      if ((--it)->lock == lock) return it;
    return held.end();
  };
  if (acquires) {
    auto it = find(acquired);
    if (it == held.end())
      held.push_back({acquired, 1, e});
    else
      ++it->depth;
  }
  if (releases) {
    auto it = find(released);
    if (it != held.end() && --it->depth == 0) held.erase(it);
  }
}

std::vector<TraceWindows::Held>& TraceWindows::HeldBy(uint32_t tid) {
  if (tid >= kDenseThreads) return sparse_[tid];
  if (tid >= held_.size()) held_.resize(tid + 1);
  return held_[tid];
}

bool TraceWindows::Add(const Event* events, size_t n, size_t* used) {
  if (skip_) {
    size_t i = 0;
    for (; i < n && (window_ == 0 || skipped_ < window_); ++i) {
      Track(events[i]);
      ++skipped_;
    }
    *used = i;
    return window_ != 0 && skipped_ >= window_;
  }
  // A window fills to its size: grow once, not by doublings that copy it, with
  // room for the carried acquires of later windows (one per held lock), so
  // that the recycled vector is big enough for each.
  constexpr size_t kCarriedRoom = 1024;
  if (window_ != 0 && events_.capacity() < window_ + carried_) ReserveHuge(&events_, window_ + carried_ + kCarriedRoom);
  size_t i = 0;
  for (; i < n; ++i) {
    if (window_ != 0 && events_.size() - carried_ >= window_) break;
    events_.push_back(events[i]);
    Track(events[i]);
  }
  *used = i;
  return window_ != 0 && events_.size() - carried_ >= window_;
}

std::vector<Event> TraceWindows::Take(size_t* carried) {
  *carried = carried_;
  std::vector<Event> out = std::move(events_);
  events_.clear();
  // The acquires of the locks held now open the next window, in trace order.
  for (const std::vector<Held>& held : held_)
    for (const Held& h : held) events_.push_back(h.acquire);
  for (const auto& [tid, held] : sparse_)
    for (const Held& h : held) events_.push_back(h.acquire);
  std::sort(events_.begin(), events_.end(), [](const Event& a, const Event& b) { return a.index < b.index; });
  carried_ = events_.size();
  ++taken_;
  skip_ = false;
  skipped_ = 0;
  return out;
}

void TraceWindows::Recycle(std::vector<Event> events) {
  // The carried acquires Take put in the fresh vector move over.
  events.assign(events_.begin(), events_.end());
  events_ = std::move(events);
}

}  // namespace seer::predictor::seqcheck
