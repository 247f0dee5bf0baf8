#include "predictor/engines/cp/cp_engine.h"

#include <algorithm>

namespace seer::predictor {

CpEngine::CpEngine(const AnalysisOptions&) {}

CpEngine::LockState& CpEngine::Lock(uint64_t lock) {
  LockState& l = locks_[lock];
  if (l.cursor.size() < threads_.size()) l.cursor.resize(threads_.size(), l.base);
  return l;
}

void CpEngine::OnRacyEvent(const Event& e) {
  // This access's waiting checks must not count it a second time.
  for (auto it = waiting_races_.rbegin(); it != waiting_races_.rend() && it->later.index == e.index; ++it)
    it->later_counted = true;
}

// Hard orders are edges of every relation, so the CP time receives the HB time.
void CpEngine::Signal(uint32_t tid, uint64_t object) {
  SignalClocks& s = signals_[object];
  s.h.Join(threads_[tid].h);
  s.p.Join(threads_[tid].p);
}

void CpEngine::Wait(uint32_t tid, uint64_t object) {
  const SignalClocks& s = signals_[object];
  threads_[tid].h.Join(s.h);
  threads_[tid].p.Join(s.h);
}

void CpEngine::EndSignals(uint64_t object) {
  if (SignalClocks* s = signals_.Find(object)) {
    s->h.Clear();
    s->p.Clear();
  }
}

void CpEngine::Acquire(uint32_t tid, uint64_t lock, bool shared) {
  LockState& l = Lock(lock);
  ThreadState& t = threads_[tid];
  // An acquire starts a new local time, so that the clocks holding it are
  // exactly those with an entry for this thread at least as large: the
  // thread's own waiting checks from before it have a smaller one.
  Tick(tid);
  OpenSection s{lock, locks_.IndexOf(lock), shared, ++sections_opened_, 0, t.n, {}, {}, {}, {}};
  s.potential.CopyFrom(l.h);
  t.h.Join(l.h);
  t.p.Join(l.p);
  if (!shared) {
    // A read-mode section excludes only write-mode ones: only they wait for it.
    s.potential.Join(l.h_read);
    t.h.Join(l.h_read);
    t.p.Join(l.p_read);
    s.seq = l.base + l.history.size();
    l.history.push_back(HistoryEntry{tid, t.n, {}});
    max_history_ = std::max(max_history_, ++history_);
  }
  t.sections.push_back(std::move(s));
}

void CpEngine::Release(uint32_t tid, uint64_t lock, bool shared) {
  LockState& l = Lock(lock);
  ThreadState& t = threads_[tid];
  auto it = std::find_if(t.sections.rbegin(), t.sections.rend(), [&](const OpenSection& o) { return o.lock == lock; });
  if (it == t.sections.rend()) return;
  OpenSection o = std::move(*it);
  t.sections.erase(std::next(it).base());
  // Rule (b): an earlier section of another thread whose acquire is CP-before
  // this release is CP-before this acquire. Read-mode sections take no part (as
  // in WCP: they are not ordered among themselves).
  if (!shared)
    if (const VectorClock* source = RuleBSource(l, tid, o.seq, t.p, &l.cursor[tid]))
      AddEdge(tid, o.acquire, &o.in, *source);
  const ClockSnapshotRef released = snapshot_pool_.Take(t.h);
  if (shared) {
    l.h_read.Join(t.h);
    l.p_read.Join(t.p);
  } else {
    if (o.seq >= l.base) l.history[o.seq - l.base].release = released;
    l.h.CopyFrom(t.h);
    l.p.CopyFrom(t.p);
    // An unresolved section in this release's past may still receive an edge,
    // which may make the next candidate's acquire CP-before this release.
    const HistoryEntry* next = NextCandidate(l, tid, o.seq, l.cursor[tid]);
    if (next != nullptr && UnresolvedBetween(Epoch{next->tid, next->acquire}, t.h)) {
      waiting_sections_.push_back(WaitingSection{tid, o.acquire, std::move(o.potential), o.lock_index, o.seq,
                                                 l.cursor[tid], std::move(o.in), t.h, t.p});
      ++l.waiting;
      max_waiting_sections_ = std::max<uint64_t>(max_waiting_sections_, waiting_sections_.size());
    }
  }
  for (uint32_t x : o.reads) l.vars.At(x).Publish(ThreadRelease{tid, t.n, released}, false, shared);
  for (uint32_t x : o.writes) l.vars.At(x).Publish(ThreadRelease{tid, t.n, released}, true, shared);
  Tick(tid);
  Settle();
  Trim(&l);
}

const VectorClock* CpEngine::RuleBSource(LockState& l, uint32_t tid, uint64_t seq, const VectorClock& p,
                                         uint64_t* cursor) {
  const VectorClock* source = nullptr;
  uint64_t& next = *cursor;
  next = std::max(next, l.base);
  // Acquires of write-mode sections are HB-ordered and p is closed under HB:
  // the sections whose acquire p holds form a prefix of the history. The
  // latest of them is the one edge that matters (its release follows the others').
  for (auto it = l.history.begin() + static_cast<ptrdiff_t>(next - l.base); next < seq; ++it, ++next) {
    if (it->tid == tid) continue;
    if (p.Get(it->tid) < it->acquire) break;
    source = &*it->release;
  }
  return source;
}

void CpEngine::AddEdge(uint32_t tid, ClockValue acquire, VectorClock* in, const VectorClock& source) {
  if (source.LessOrEqual(*in)) return;
  in->Join(source);
  ++edges_;
  Propagate(tid, acquire, source);
}

// Everything the acquire (tid, acquire) happens before now learns `source`:
// the clocks whose HB time holds the acquire.
void CpEngine::Propagate(uint32_t tid, ClockValue acquire, const VectorClock& source) {
  auto holds = [&](const VectorClock& h) { return h.Get(tid) >= acquire; };
  ThreadState& owner = threads_[tid];
  owner.p.Join(source);
  for (WaitingRace& r : waiting_races_) {
    if (r.ordered || !holds(r.h)) continue;
    r.p.Join(source);
    r.ordered = r.earlier.clock <= r.p.Get(r.earlier.tid);
  }
  // Nothing published since the acquire: no other clock holds it. The common case.
  if (owner.n == acquire) return;
  ++late_edges_;
  for (uint32_t u = 0; u < threads_.size(); ++u)
    if (u != tid && holds(threads_[u].h)) threads_[u].p.Join(source);
  locks_.ForEach([&](uint64_t, LockState& l) {
    if (holds(l.h)) l.p.Join(source);
    if (holds(l.h_read)) l.p_read.Join(source);
  });
  signals_.ForEach([&](uint64_t, SignalClocks& s) {
    if (holds(s.h)) s.p.Join(source);
  });
  // A waiting release that learns more may find a later rule (b) source, an
  // edge of its own (the recursion ends: each step grows some `in`). Indices:
  // nothing is added to the vector meanwhile.
  for (size_t i = 0; i < waiting_sections_.size(); ++i) {
    WaitingSection& z = waiting_sections_[i];
    if (!holds(z.h)) continue;
    z.p.Join(source);
    if (const VectorClock* s = RuleBSource(locks_.At(z.lock_index), z.tid, z.seq, z.p, &z.cursor))
      AddEdge(z.tid, z.acquire, &waiting_sections_[i].in, *s);
  }
}

namespace {
// Whether a section acquired at (tid, acquire) whose edges so far join to `in`
// and may come from releases up to `potential` can still tell a clock with HB
// time `h` about the event `e`.
bool MayTell(uint32_t tid, ClockValue acquire, const VectorClock& potential, const VectorClock& in, const Epoch& e,
             const VectorClock& h) {
  return h.Get(tid) >= acquire && e.clock <= potential.Get(e.tid) && e.clock > in.Get(e.tid);
}
}  // namespace

bool CpEngine::OpenMayTell(const Epoch& e, const VectorClock& h) const {
  for (uint32_t u = 0; u < threads_.size(); ++u)
    for (const OpenSection& s : threads_[u].sections)
      if (MayTell(u, s.acquire, s.potential, s.in, e, h)) return true;
  return false;
}

bool CpEngine::UnresolvedBetween(const Epoch& e, const VectorClock& h) const {
  if (OpenMayTell(e, h)) return true;
  for (const WaitingSection& z : waiting_sections_)
    if (MayTell(z.tid, z.acquire, z.potential, z.in, e, h)) return true;
  return false;
}

const CpEngine::HistoryEntry* CpEngine::NextCandidate(LockState& l, uint32_t tid, uint64_t seq, uint64_t cursor) const {
  for (uint64_t i = std::max(cursor, l.base); i < seq; ++i) {
    const HistoryEntry& e = l.history[i - l.base];
    if (e.tid != tid) return &e;
  }
  return nullptr;
}

void CpEngine::Settle() {
  const size_t waiting = waiting_sections_.size() + waiting_races_.size();
  if (waiting == 0) return;
  // Settling costs a scan of the waiting sets per waiting item: when they are
  // large, settle once per as many events as they hold (amortised). Keeping a
  // settled item longer only makes more checks wait, never changes a result.
  if (waiting > 16 && events_since_settle_ < waiting) return;
  events_since_settle_ = 0;
  // A waiting release stays live while an open section can still tell it
  // about its next rule (b) candidate, directly or through live waiting
  // releases (the least fixpoint: releases that only feed each other are final).
  const size_t n = waiting_sections_.size();
  std::vector<Epoch> next(n);
  std::vector<char> live(n, 0), has_next(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const WaitingSection& z = waiting_sections_[i];
    const HistoryEntry* c = NextCandidate(locks_.At(z.lock_index), z.tid, z.seq, z.cursor);
    if (c == nullptr) continue;
    has_next[i] = 1;
    next[i] = Epoch{c->tid, c->acquire};
    live[i] = OpenMayTell(next[i], z.h);
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < n; ++i) {
      if (live[i] || !has_next[i]) continue;
      for (size_t j = 0; j < n && !live[i]; ++j) {
        const WaitingSection& w = waiting_sections_[j];
        if (live[j] && j != i && MayTell(w.tid, w.acquire, w.potential, w.in, next[i], waiting_sections_[i].h))
          live[i] = changed = true;
      }
    }
  }
  size_t kept = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!live[i]) {
      --locks_.At(waiting_sections_[i].lock_index).waiting;
      continue;
    }
    if (kept != i) waiting_sections_[kept] = std::move(waiting_sections_[i]);
    ++kept;
  }
  waiting_sections_.resize(kept);
  ReportWaitingRaces(/*all=*/false);
}

// Reports the waiting checks that nothing can order any more (all of the
// unordered ones at the end of the trace) and drops them with the ordered ones.
// An access counts once: its waiting checks are adjacent in waiting_races_
// (made during its event), and reporting one marks the others counted.
void CpEngine::ReportWaitingRaces(bool all) {
  const size_t n = waiting_races_.size();
  std::vector<char> settled(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const WaitingRace& r = waiting_races_[i];
    settled[i] = r.ordered || all || !UnresolvedBetween(r.earlier.epoch(), r.h);
  }
  for (size_t i = 0; i < n; ++i) {
    const WaitingRace& r = waiting_races_[i];
    if (!settled[i] || r.ordered) continue;
    collector_.AddPair(r.earlier.ref(), r.later);
    if (r.later_counted) continue;
    collector_.AddRacyEvent(r.later);
    for (size_t j = i; j < n && waiting_races_[j].later.index == r.later.index; ++j)
      waiting_races_[j].later_counted = true;
    for (size_t j = i; j-- > 0 && waiting_races_[j].later.index == r.later.index;)
      waiting_races_[j].later_counted = true;
  }
  size_t kept = 0;
  for (size_t i = 0; i < n; ++i)
    if (!settled[i]) {
      if (kept != i) waiting_races_[kept] = std::move(waiting_races_[i]);
      ++kept;
    }
  waiting_races_.resize(kept);
}

// Drops the history every live thread has looked past, unless a waiting
// section of this lock may still look back into it.
void CpEngine::Trim(LockState* l) {
  if (l->waiting > 0) return;
  uint64_t lowest = l->base + l->history.size();
  for (uint32_t u = 0; u < threads_.size(); ++u) {
    if (threads_[u].finished) continue;
    const uint64_t c = u < l->cursor.size() ? l->cursor[u] : l->base;
    lowest = std::min(lowest, std::max(c, l->base));
    if (lowest == l->base) return;
  }
  while (l->base < lowest && !l->history.empty()) {
    l->history.pop_front();
    ++l->base;
    --history_;
  }
}

// Rule (a), found eagerly: an access conflicting with one in an earlier
// section of another thread on a held lock orders that section's release
// before this section's acquire.
void CpEngine::RuleA(uint32_t tid, uint64_t var, bool write) {
  for (OpenSection& s : threads_[tid].sections) {
    LockState& l = locks_.At(s.lock_index);
    const uint32_t x = l.vars.IndexOf(var);
    ReleaseTimes& r = l.vars.At(x);
    r.ForEachConflicting(tid, write, s.shared, [&](const ThreadRelease& c) {
      if (s.in.Get(c.tid) < c.latest) AddEdge(tid, s.acquire, &s.in, *c.clock);
    });
    uint64_t& mark = write ? r.write_mark : r.read_mark;
    if (mark != s.id) {
      mark = s.id;
      (write ? s.writes : s.reads).push_back(x);
    }
  }
}

void CpEngine::Check(uint32_t tid, Cell& cell, const AccessRecord& record, bool write) {
  const ThreadState& t = threads_[tid];
  auto known = [&t, tid](const Epoch& ep) { return ep.clock <= (ep.tid == tid ? t.n : t.p.Get(ep.tid)); };
  CheckAndRecord(&cell.reads, &cell.writes, record, write, known,
                 [&](const AccessRecord& a) { OnFailedCheck(tid, a); });
}

// `earlier` is not CP-before the current access as far as is known now. If it
// is not even HB-before, nothing can order it; otherwise a late edge into an
// unresolved acquire between the two (in HB) may: the check waits.
void CpEngine::OnFailedCheck(uint32_t tid, const AccessRecord& earlier) {
  const ThreadState& t = threads_[tid];
  if (earlier.clock <= t.h.Get(earlier.tid) && UnresolvedBetween(earlier.epoch(), t.h)) {
    waiting_races_.push_back(WaitingRace{earlier, EventRef::Of(*current_), t.h, t.p});
    max_waiting_races_ = std::max<uint64_t>(max_waiting_races_, waiting_races_.size());
    return;
  }
  collector_.AddPair(earlier.ref(), EventRef::Of(*current_));
  racy_ = true;
}

// A free (`freed`) writes its whole block (sync_ops.h).
void CpEngine::Access(uint32_t tid, const LoweredOp& op, bool freed) {
  ThreadState& t = threads_[tid];
  const bool write = freed || op.op == SyncOp::kWrite;
  const AccessRecord record = AccessRecord::Of(*current_, t.n, !freed && op.atomic);
  shadow_.TwoPasses(
      op.object, op.size, freed, !t.sections.empty(), [&](Cell& c) { RuleA(tid, VarOf(c), write); },
      [&](Cell& c) { Check(tid, c, record, write); });
}

Status CpEngine::Finish(Findings* findings) {
  if (!thread_ids_.status().ok()) return thread_ids_.status();
  // The trace is over: no edge can come any more.
  ReportWaitingRaces(/*all=*/true);
  RaceResult result;
  // CP's theorem (Smaragdakis et al.): if a trace has a CP race, some
  // reordering has a race or a deadlock. Like HB's, later races may follow
  // from the first, so only the first is guaranteed.
  collector_.Fill("cp", Guarantee::kFirstIsReal, &result);
  findings->races.push_back(std::move(result));
  findings->stats.push_back(AnalysisStats{"cp",
                                          {{"edges", static_cast<double>(edges_)},
                                           {"late edges", static_cast<double>(late_edges_)},
                                           {"waiting race checks (peak)", static_cast<double>(max_waiting_races_)},
                                           {"waiting releases (peak)", static_cast<double>(max_waiting_sections_)},
                                           {"sections kept for rule (b) (peak)", static_cast<double>(max_history_)}}});
  return Status::Ok();
}

// Here, with the steps the event loop calls.
template class TwoClockEngine<CpEngine, CpOpenSection>;

std::unique_ptr<Engine> NewCpEngine(const AnalysisOptions& options) { return std::make_unique<CpEngine>(options); }

}  // namespace seer::predictor
