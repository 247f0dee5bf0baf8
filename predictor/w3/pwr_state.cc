#include "predictor/w3/pwr_state.h"

#include <algorithm>

namespace seer::w3 {

PwrState::ThreadState& PwrState::StartThread(uint32_t t) {
  if (t >= threads_.size()) threads_.resize(t + 1);
  ThreadState& s = threads_[t];
  if (s.clock.Get(t) == 0) s.clock.Set(t, 1);
  s.started = true;
  return s;
}

// The newest section of `list` whose acquire is at or before `seen` (and, with
// `exclusive_only`, that is not read-mode), within the history bound.
const PwrState::Section* PwrState::Newest(const SectionList& list, ClockValue seen, bool exclusive_only) const {
  uint64_t lo = list.first(history_bound_), hi = list.end;  // answer in [lo, hi): acquired <= seen
  if (lo == hi || list.at(lo, ring_mask_).acquired > seen) return nullptr;
  while (hi - lo > 1) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (list.at(mid, ring_mask_).acquired <= seen) lo = mid; else hi = mid;
  }
  const Section* newest = &list.at(lo, ring_mask_);
  if (!exclusive_only || !newest->shared) return newest;
  const uint64_t e = newest->last_exclusive;
  return e == kNoSection || e < list.first(history_bound_) ? nullptr : &list.at(e, ring_mask_);
}

// Joins writer's newest section on h.lock whose acquire is ordered before t's
// next event. Returns whether t's clock grew.
bool PwrState::JoinNewest(uint32_t t, ThreadState& s, const Held& h, uint32_t writer) {
  if (writer == t || writer >= h.history->by_thread.size()) return false;  // own sections: program order
  // Two read-mode sections do not exclude each other: no order between them.
  const Section* newest = Newest(h.history->by_thread[writer], s.clock.Get(writer), h.shared);
  // One entry decides whether the join adds anything: a release clock is its
  // thread's whole clock at the end of the release's event (W3 runs first,
  // nothing joins after it but the tick), every clock any thread holds is a
  // join of such end-of-event clocks (releases, forks, signals, the writes
  // reads depend on), and a thread's clock only grows. So a clock that holds
  // the writer's time at the release holds the whole release clock, and a
  // section joined before is not joined again.
  if (newest == nullptr || newest->released.Get(writer) <= s.clock.Get(writer)) return false;
  JoinTracked(s, newest->released);
  return true;
}

void PwrState::JoinTracked(ThreadState& s, const VectorClock& other) {
  // Listing more than an eighth of the threads saves little over looking at
  // all of them, and would keep a long list per thread.
  const size_t most = kMinGrown + other.size() / 8;
  if (!s.grown_all && !s.held.empty()) {
    for (uint32_t u = 0; u < other.size() && s.grown.size() <= most; ++u)
      if (other.Get(u) > s.clock.Get(u)) s.grown.push_back(u);
  }
  if (s.held.empty() || s.grown.size() > most) {
    s.grown_all = true;
    s.grown.clear();
  }
  s.clock.Join(other);
}

// Applies the release-order rule to a fixpoint. Writer j's newest section on a
// held lock ordered before t's event depends only on j's sections and t's entry
// for j (t's own ticks order no other thread's acquire), so a look is owed only
// for the writers whose entry grew (a join from outside, or one made here) and
// for those that added a section to the lock since its last look: each look
// costs those writers, not one step per thread. A newly held lock, or more
// grown entries or new sections than are listed, costs one step per thread.
void PwrState::W3(uint32_t t) {
  ThreadState& s = Thread(t);
  if (s.held.empty()) return;
  bool first = true;
  while (first || s.grown_all || !s.grown.empty()) {
    const bool all = s.grown_all;
    s.scanning.swap(s.grown);  // the joins below list what grows next in s.grown
    s.grown.clear();
    s.grown_all = false;
    for (const Held& h : s.held) {
      LockHistory& hist = *h.history;
      const bool fresh = first && h.seen != hist.sections;
      if (all || (fresh && (h.seen == kNotSeen || hist.sections - h.seen > kRecentWriters))) {
        for (uint32_t j = 0; j < hist.by_thread.size(); ++j) JoinNewest(t, s, h, j);
        continue;
      }
      for (uint32_t j : s.scanning) JoinNewest(t, s, h, j);
      if (fresh)
        for (uint64_t n = h.seen; n < hist.sections; ++n) JoinNewest(t, s, h, hist.writers[n % kRecentWriters]);
    }
    first = false;
  }
  s.scanning.clear();
  for (Held& h : s.held) h.seen = h.history->sections;
}

void PwrState::Acquire(uint32_t t, uint64_t lock, bool shared) {
  W3(t);
  ThreadState& s = Thread(t);
  for (Held& h : s.held)
    if (h.lock == lock) {
      ++h.depth;
      Tick(t);
      return;
    }
  std::unique_ptr<LockHistory>& slot = history_[lock];
  if (!slot) slot = std::make_unique<LockHistory>();
  LockHistory* history = slot.get();
  const uint32_t before = s.lockset;
  s.held.push_back({lock, shared, 1, s.clock.Get(t), history, kNotSeen, before});
  if (history->with_from != before || history->with_shared != shared) {
    history->with_from = before;
    history->with_shared = shared;
    history->with_to = locksets_.With(before, lock, shared);
  }
  s.lockset = history->with_to;
  Tick(t);
}

void PwrState::Release(uint32_t t, uint64_t lock) {
  W3(t);
  ThreadState& s = Thread(t);
  auto it = std::find_if(s.held.begin(), s.held.end(), [&](const Held& h) { return h.lock == lock; });
  if (it == s.held.end()) {  // the trace began inside this section: nothing to record
    Tick(t);
    return;
  }
  if (--it->depth > 0) {
    Tick(t);
    return;
  }
  LockHistory& hist = *it->history;
  if (hist.by_thread.size() <= t) hist.by_thread.resize(t + 1);
  SectionList& list = hist.by_thread[t];
  if (history_bound_ != 0 && list.end >= history_bound_) ++dropped_;
  const uint64_t n = list.end;
  const uint64_t previous_exclusive = n == 0 ? kNoSection : list.at(n - 1, ring_mask_).last_exclusive;
  Section& sec = list.Append(ring_mask_);
  sec.acquired = it->acquired;
  sec.shared = it->shared;
  sec.last_exclusive = it->shared ? previous_exclusive : n;
  sec.released.CopyFrom(s.clock);
  if (hist.writers.size() < kRecentWriters) hist.writers.resize(kRecentWriters);
  hist.writers[hist.sections % kRecentWriters] = t;
  ++hist.sections;
  if (it + 1 == s.held.end() && it->lockset_before != kUnknownLockset) {
    s.lockset = it->lockset_before;
  } else {
    for (auto later = it + 1; later != s.held.end(); ++later) later->lockset_before = kUnknownLockset;
    s.lockset = locksets_.Without(s.lockset, lock);
  }
  s.held.erase(it);
  Tick(t);
}

void PwrState::Fork(uint32_t t, uint32_t child) {
  W3(t);
  const VectorClock parent = Thread(t).clock;
  JoinClock(child, parent);
  Tick(t);
}

void PwrState::Join(uint32_t t, uint32_t child) {
  const VectorClock done = Thread(child).clock;
  JoinClock(t, done);
  Tick(t);
}

void PwrState::Signal(uint32_t t, uint64_t object) {
  W3(t);
  signals_[object].Join(Thread(t).clock);
  Tick(t);
}

void PwrState::Wait(uint32_t t, uint64_t object) {
  auto it = signals_.find(object);
  if (it != signals_.end()) JoinClock(t, it->second);
  Tick(t);
}

}  // namespace seer::w3
