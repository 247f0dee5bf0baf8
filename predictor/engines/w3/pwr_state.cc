#include "predictor/engines/w3/pwr_state.h"

#include <algorithm>
#include <bit>

namespace seer::predictor::w3 {

PwrState::ThreadState& PwrState::StartThread(uint32_t t) {
  if (t >= threads_.size()) threads_.resize(t + 1);
  ThreadState& s = threads_[t];
  if (s.clock.Get(t) == 0) s.clock.Set(t, 1);
  s.started = true;
  return s;
}

const PwrState::Section* PwrState::NewestOrdered(const SectionList& list, ClockValue seen, uint64_t* hint) const {
  // Gallop to a bracket, lo's acquire ordered and hi's not, then halve. The
  // answer is usually next to where this reader's last search ended, or else a
  // few sections back from the newest.
  const uint64_t first = list.first(history_bound_);  // sections dropped by the bound are lost
  const auto ordered = [&](uint64_t n) { return list.at(n, ring_mask_).acquired <= seen; };
  uint64_t lo, hi;
  if (hint != nullptr && *hint > first) {
    lo = *hint - 1;  // ordered once, so still (clocks only grow)
    hi = lo + 1;
    for (uint64_t step = 1; hi < list.end && ordered(hi); step *= 2) {
      lo = hi;
      hi = list.end - lo > step ? lo + step : list.end;
    }
  } else {
    hi = list.end - 1;
    for (uint64_t step = 1;; step *= 2) {
      lo = hi - first > step ? hi - step : first;
      if (ordered(lo)) break;
      if (lo == first) return nullptr;
      hi = lo;
    }
  }
  while (hi - lo > 1) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (ordered(mid))
      lo = mid;
    else
      hi = mid;
  }
  if (hint != nullptr) *hint = lo + 1;
  return &list.at(lo, ring_mask_);
}

std::vector<PwrState::Hint>& PwrState::HintsOf(LockHistory& hist, uint32_t t) {
  if (hist.hints.size() <= t) hist.hints.resize(t + 1);
  std::vector<Hint>& row = hist.hints[t];
  const size_t writers = hist.newest_released.size();
  if (row.size() < writers && hint_bytes_ + (writers - row.size()) * sizeof(Hint) <= hint_budget_bytes_) {
    hint_bytes_ += (writers - row.size()) * sizeof(Hint);
    row.resize(writers);
  }
  return row;
}

// Joins, for each other thread, the newest section on h.lock whose acquire is
// ordered before t's next event. Returns whether t's clock grew.
//
// One entry decides whether the join adds anything: a release clock is its
// thread's whole clock at the end of the release's event (W3 runs first,
// nothing joins after it but the tick), every clock any thread holds is a join
// of such end-of-event clocks (releases, forks, signals, the writes reads
// depend on), and a thread's clock only grows. So a clock that holds j's time
// at the release holds the whole release clock, and a section adds to t's
// clock exactly when t's entry for j lies in [acquired, released) (LockHistory).
// The joins are the same whatever order the writers are visited in: W3
// repeats to a fixpoint, the least one above t's clock.
bool PwrState::JoinOrderedSections(uint32_t t, ThreadState& s, const Held& h) {
  LockHistory& hist = *h.history;
  const size_t writers = hist.newest_released.size();
  std::vector<Hint>& hints = HintsOf(hist, t);
  bool grew = false;
  // Blocks of 64 writers: a mask of those whose entry falls between their first
  // kept acquire and their newest release (a loop the compiler vectorises),
  // then a look at each. A join may grow the clock (and move its storage):
  // each look re-reads the entry, and the next block the storage.
  // Past the clock's size an entry is 0, before every writer's first acquire.
  for (size_t base = 0; base < std::min(writers, s.clock.size()); base += 64) {
    const size_t n = std::min<size_t>(64, std::min(writers, s.clock.size()) - base);
    const ClockValue* c = s.clock.data() + base;
    const ClockValue* first = hist.first_acquired.data() + base;
    const ClockValue* newest = hist.newest_released.data() + base;
    const ClockValue* gap_from = hist.previous_released.data() + base;
    const ClockValue* gap_to = hist.newest_acquired.data() + base;
    uint64_t mask = 0;
    for (size_t i = 0; i < n; ++i)
      mask |= uint64_t{first[i] <= c[i] && c[i] < newest[i] && !(gap_from[i] <= c[i] && c[i] < gap_to[i])} << i;
    while (mask != 0) {
      const uint32_t j = static_cast<uint32_t>(base + static_cast<size_t>(std::countr_zero(mask)));
      mask &= mask - 1;
      if (j == t) continue;  // t's own sections precede it in program order
      const ClockValue seen = s.clock.Get(j);
      const SectionList& list = hist.by_thread[j];
      Hint* hint = j < hints.size() ? &hints[j] : nullptr;
      const Section* sec;
      if (seen >= hist.newest_acquired[j]) {
        sec = &list.at(list.end - 1, ring_mask_);
      } else {
        // The newest section is not ordered, so sections added since cannot
        // be either: with the same entry as a look that needed nothing, this
        // one needs nothing.
        if (hint != nullptr && hint->quiet == seen) continue;
        sec = NewestOrdered(list, seen, hint != nullptr ? &hint->next : nullptr);
        if (hint != nullptr && (sec == nullptr || sec->released_at <= seen)) hint->quiet = seen;
      }
      // Two read-mode sections do not exclude each other: no order between them
      // (and the exclusive one before a read-mode section is already known).
      if (sec == nullptr || (h.shared && sec->shared) || sec->released_at <= seen) continue;
      s.clock.Join(sec->released);
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
  // otherwise the fixpoint of the last look still holds.
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
  sec.released_at = s.clock.Get(t);
  ++hist.sections;
  if (hist.newest_released.size() <= t) {
    hist.first_acquired.resize(t + 1, ~ClockValue{0});
    hist.newest_acquired.resize(t + 1, 0);
    hist.newest_released.resize(t + 1, 0);
    hist.previous_released.resize(t + 1, 0);
  }
  hist.previous_released[t] = hist.newest_released[t];
  if (list.end == 1) hist.first_acquired[t] = sec.acquired;
  hist.newest_acquired[t] = sec.acquired;
  hist.newest_released[t] = sec.released_at;
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

}  // namespace seer::predictor::w3
