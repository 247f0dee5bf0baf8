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
  s.clock.Join(newest->released);
  return true;
}

// Joins, for each other thread, the newest section on h.lock whose acquire is
// ordered before t's next event. Returns whether t's clock grew. Without
// `all_writers`, t's clock has not grown since h's last look (only its own entry
// ticked, which orders no other thread's acquire), so only the writers of the
// sections added since can have anything new: the look costs those writers,
// not one step per thread.
bool PwrState::JoinOrderedSections(uint32_t t, ThreadState& s, const Held& h, bool all_writers) {
  LockHistory& hist = *h.history;
  const uint64_t added = hist.sections - h.seen;
  bool grew = false;
  if (all_writers || h.seen == kNotSeen || added > kRecentWriters) {
    for (uint32_t j = 0; j < hist.by_thread.size(); ++j) grew |= JoinNewest(t, s, h, j);
  } else {
    for (uint64_t n = h.seen; n < hist.sections; ++n) grew |= JoinNewest(t, s, h, hist.writers[n % kRecentWriters]);
  }
  return grew;
}

void PwrState::W3(uint32_t t) {
  ThreadState& s = Thread(t);
  if (s.held.empty()) return;
  // A held lock needs a look only if t's clock grew from outside or the lock's
  // history did (own ticks do not order other threads' acquires before t);
  // otherwise the last look would find nothing new.
  bool grew = false;
  for (const Held& h : s.held)
    if (s.dirty || h.seen != h.history->sections) grew |= JoinOrderedSections(t, s, h, s.dirty);
  // A joined release clock may order further acquires before t: repeat to a fixpoint.
  while (grew) {
    grew = false;
    for (const Held& h : s.held) grew |= JoinOrderedSections(t, s, h, /*all_writers=*/true);
  }
  s.dirty = false;
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
