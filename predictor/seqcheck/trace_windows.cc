#include "predictor/seqcheck/trace_windows.h"

#include <algorithm>
#include <iterator>

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
  if (acquires) {
    auto [it, fresh] = held_.try_emplace({e.tid, acquired}, 0, e);
    if (fresh || it->second.first == 0) it->second.second = e;
    ++it->second.first;
    if (fresh && held_.size() > prune_at_) Prune();
  }
  if (releases) {
    // An entry stays at depth 0 once released: every event of every window
    // comes through here, and a map node allocated and freed per critical
    // section was a tenth of a shard's time (predictor/shard.h).
    auto it = held_.find({e.tid, released});
    if (it != held_.end() && it->second.first > 0) --it->second.first;
  }
}

void TraceWindows::Prune() {
  // Released entries go when there are many (a program with a lock per
  // object): memory stays that of the locks held, and a sweep frees at least
  // half of what it looks at before the next one.
  for (auto it = held_.begin(); it != held_.end();) it = it->second.first == 0 ? held_.erase(it) : std::next(it);
  prune_at_ = std::max(kPruneAt, 2 * held_.size());
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
  for (const auto& [key, state] : held_)
    if (state.first > 0) events_.push_back(state.second);
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
