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

// Joins, for each other thread, the newest section on h.lock whose acquire is
// ordered before t's next event. Returns whether t's clock grew.
bool PwrState::JoinOrderedSections(uint32_t t, ThreadState& s, const Held& h) {
  LockHistory& hist = *h.history;
  if (hist.cursors.size() <= t) hist.cursors.resize(t + 1);
  auto& cursors = hist.cursors[t];
  if (cursors.size() < hist.by_thread.size()) cursors.resize(hist.by_thread.size());
  bool grew = false;
  for (uint32_t j = 0; j < hist.by_thread.size(); ++j) {
    if (j == t) continue;  // t's own sections precede it in program order
    const SectionList& list = hist.by_thread[j];
    uint64_t& cur = h.shared ? cursors[j].exclusive : cursors[j].any;
    if (cur == list.end) continue;
    cur = std::max(cur, list.first(history_bound_));  // sections dropped by the bound are lost
    const ClockValue seen = s.clock.Get(j);
    const Section* newest = nullptr;
    while (cur < list.end) {
      const Section& sec = list.at(cur, ring_mask_);
      if (sec.acquired > seen) break;  // acquire not ordered before t's event
      // Two read-mode sections do not exclude each other: no order between them.
      if (!(h.shared && sec.shared)) newest = &sec;
      ++cur;
    }
    // One entry decides whether the join adds anything: a release clock is its
    // thread's whole clock at the end of the release's event (W3 runs first,
    // nothing joins after it but the tick), every clock any thread holds is a
    // join of such end-of-event clocks (releases, forks, signals, the writes
    // reads depend on), and a thread's clock only grows. So a clock that holds
    // j's time at the release holds the whole release clock. This keeps the
    // check O(1) per writer thread instead of O(threads).
    if (newest != nullptr && newest->released.Get(j) > s.clock.Get(j)) {
      s.clock.Join(newest->released);
      grew = true;
    }
  }
  return grew;
}

void PwrState::W3(uint32_t t) {
  ThreadState& s = Thread(t);
  if (s.held.empty()) return;
  // A held lock needs a look only if t's clock grew from outside or the lock's
  // history did (own ticks do not order other threads' acquires before t);
  // otherwise the last look left its cursors where this one would.
  bool grew = false;
  for (const Held& h : s.held)
    if (s.dirty || h.seen != h.history->sections) grew |= JoinOrderedSections(t, s, h);
  // A joined release clock may order further acquires before t: repeat to a fixpoint.
  while (grew) {
    grew = false;
    for (const Held& h : s.held) grew |= JoinOrderedSections(t, s, h);
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
  s.held.push_back({lock, shared, 1, s.clock.Get(t), history, history->sections - 1, before});
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
  Section& sec = list.Append(ring_mask_);
  sec.acquired = it->acquired;
  sec.shared = it->shared;
  sec.released.CopyFrom(s.clock);
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
