#include "predictor/engines/wcp/wcp_engine.h"

#include <algorithm>

namespace seer::predictor {

namespace {
constexpr size_t kSpareSectionBytes = size_t{64} << 20;
}  // namespace

WcpEngine::WcpEngine(const AnalysisOptions& options)
    : rapid_compatible_(options.rapid_compatible), queue_budget_bytes_(options.wcp_queue_bytes) {}

WcpEngine::LockState& WcpEngine::Lock(uint64_t lock) {
  LockState& l = locks_[lock];
  if (l.cursor.size() < threads_.size()) l.cursor.resize(threads_.size(), l.queue_base);
  return l;
}

void WcpEngine::InnerRelease(uint32_t tid, uint64_t lock) {
  // RAPID treats the inner release of a recursive lock as a release for rule
  // (b): the thread receives the queued sections' times already here.
  if (rapid_compatible_ && IsHeld(tid, lock)) ApplyRuleB(tid, &Lock(lock));
}

// Hard order: the waiter receives the signaller's HB time in both clocks.
void WcpEngine::Signal(uint32_t tid, uint64_t object) { signals_[object].Join(threads_[tid].h); }

void WcpEngine::Wait(uint32_t tid, uint64_t object) {
  const VectorClock& s = signals_[object];
  threads_[tid].h.Join(s);
  threads_[tid].p.Join(s);
}

void WcpEngine::EndSignals(uint64_t object) {
  if (VectorClock* s = signals_.Find(object)) s->Clear();
}

void WcpEngine::Acquire(uint32_t tid, uint64_t lock, bool shared) {
  LockState& l = Lock(lock);
  ThreadState& t = threads_[tid];
  t.h.Join(l.h);  // line 1
  t.p.Join(l.p);  // line 2
  OpenSection section{lock, locks_.IndexOf(lock), shared, ++sections_opened_, {}, {}};
  if (spare_.size() >= 2) {
    section.reads.swap(spare_.back());
    spare_.pop_back();
    section.writes.swap(spare_.back());
    spare_.pop_back();
  }
  t.sections.push_back(std::move(section));
  if (shared) return;  // read-mode sections have no queue entry (docs/analyses.md)
  t.h.Join(l.h_read);
  t.p.Join(l.p_read);
  Section s;  // line 3
  if (!spare_sections_.empty()) {
    s = std::move(spare_sections_.back());
    spare_sections_.pop_back();
    s.delta.clear();
  }
  s.tid = tid;
  s.acquire = t.n;
  l.open = l.queue_base + l.queue.size();
  s.full = l.cursor[tid] >= l.open;  // see Section
  queue_bytes_ += BytesOf(s);
  l.queue.push_back(std::move(s));
  max_queue_entries_ = std::max(max_queue_entries_, ++queue_entries_);
}

void WcpEngine::Release(uint32_t tid, uint64_t lock, bool shared) {
  LockState& l = Lock(lock);
  ThreadState& t = threads_[tid];
  if (shared) {
    Publish(tid, &l, lock, true);
    l.h_read.Join(t.h);
    l.p_read.Join(t.p);
    Tick(tid);
    return;
  }
  ApplyRuleB(tid, &l);
  Publish(tid, &l, lock, false);  // lines 7-8
  if (l.open >= l.queue_base && l.open < l.queue_base + l.queue.size()) {
    // Line 10, as the entries over H_l: the previous write-mode release (Section).
    Section& s = l.queue[l.open - l.queue_base];
    queue_bytes_ -= BytesOf(s);
    for (uint32_t u = 0; u < t.h.size(); ++u)
      if (t.h.Get(u) > (s.full ? 0 : l.h.Get(u))) s.delta.emplace_back(u, t.h.Get(u));
    s.released = t.n;
    queue_bytes_ += BytesOf(s);
  }
  l.h.CopyFrom(t.h);  // line 9
  l.p.CopyFrom(t.p);
  Tick(tid);
  Trim(&l);
}

// Lines 4-6: rule (b). Sections of other threads whose acquire is WCP-before
// this release are WCP-before it too. RAPID also walks the thread's own earlier
// sections (its one list per lock); the paper's queues hold only other threads'.
void WcpEngine::ApplyRuleB(uint32_t tid, LockState* l) {
  ThreadState& t = threads_[tid];
  uint64_t& next = l->cursor[tid];
  if (next < l->queue_base) {
    // Sections this thread had not looked at were folded (Fold): receive
    // them all at once. (Trim drops only sections every live thread passed.)
    t.p.Join(l->dropped);
    next = l->queue_base;
  }
  // An iterator, not queue[i]: deque indexing costs a division per step.
  for (auto it = l->queue.begin() + static_cast<ptrdiff_t>(next - l->queue_base); next < l->open; ++it, ++next) {
    const Section& s = *it;
    if (s.tid == tid && !rapid_compatible_) continue;
    // The thread's own earlier acquire is always known to it (C_t only grows);
    // another thread's is known when P_t has reached its local time (Section).
    if (s.tid != tid && t.p.Get(s.tid) < s.acquire) break;
    // The same argument for the release: a P that has reached the release's
    // local time already includes all of it.
    if (t.p.Get(s.tid) < s.released)
      for (const auto& [u, time] : s.delta) t.p.Set(u, std::max(t.p.Get(u), time));
  }
}

bool WcpEngine::IsHeld(uint32_t tid, uint64_t lock) {
  for (const HeldLock& h : held_.Of(tid))
    if (h.lock == lock) return !h.shared;
  return false;
}

// Lines 7-8: this release's HB time, for later conflicting accesses under `lock`.
void WcpEngine::Publish(uint32_t tid, LockState* l, uint64_t lock, bool shared) {
  ThreadState& t = threads_[tid];
  auto it = std::find_if(t.sections.begin(), t.sections.end(), [&](const OpenSection& o) { return o.lock == lock; });
  if (it == t.sections.end()) return;
  auto close = [&] {
    it->reads.clear();
    it->writes.clear();
    spare_.push_back(std::move(it->reads));
    spare_.push_back(std::move(it->writes));
    t.sections.erase(it);
  };
  if (it->reads.empty() && it->writes.empty()) {
    close();
    return;
  }
  // Releases of one thread are HB-ordered, so the join of its release times for x
  // is the time of the latest one: H_t now.
  const ClockSnapshotRef released = snapshot_pool_.Take(t.h);
  auto publish = [&](const std::vector<uint32_t>& vars, bool writes) {
    for (uint32_t x : vars) l->vars.At(x).Publish(ThreadRelease{tid, t.n, released}, writes, shared);
  };
  publish(it->reads, false);
  publish(it->writes, true);
  close();
}

// Drops the sections every live thread has looked past. The releasing thread's
// own cursor stops at its own section, so an open section is never dropped.
void WcpEngine::Trim(LockState* l) {
  uint64_t lowest = l->queue_base + l->queue.size();
  for (uint32_t u = 0; u < threads_.size(); ++u) {
    if (threads_[u].finished) continue;
    const uint64_t c = u < l->cursor.size() ? l->cursor[u] : l->queue_base;
    lowest = std::min(lowest, std::max(c, l->queue_base));
    if (lowest == l->queue_base) break;  // nothing to drop: the usual case
  }
  while (l->queue_base < lowest && !l->queue.empty()) DropFront(l);
  Fold(l);
}

// Over the memory bound, the older half of this lock's queue is folded into one
// clock, `folded`: a thread whose cursor had not passed a folded section
// receives the join of all of them at its next release of the lock, as if it
// knew every folded acquire. That orders at least what rule (b) would (never a
// race WCP would not report) and possibly more (a race WCP would report can be
// missed); Finish counts the folded sections so that a report says so. Each
// lock's queue grows only at its acquires and every release trims it, so the
// total stays near the bound.
void WcpEngine::Fold(LockState* l) {
  if (queue_bytes_ <= queue_budget_bytes_) return;
  uint64_t end = l->queue_base + l->queue.size() / 2;
  end = std::min(end, l->open);  // the holder's section stays
  for (uint32_t u = 0; u < threads_.size() && u < l->cursor.size(); ++u)
    if (!threads_[u].finished && l->cursor[u] < end) folded_sections_ += end - std::max(l->cursor[u], l->queue_base);
  while (l->queue_base < end) DropFront(l);
}

void WcpEngine::DropFront(LockState* l) {
  for (const auto& [u, time] : l->queue.front().delta) l->dropped.Set(u, std::max(l->dropped.Get(u), time));
  queue_bytes_ -= BytesOf(l->queue.front());
  // Kept for reuse up to a memory budget: with many threads a queue can grow
  // to thousands of sections and shrink at once, and handing their clocks to
  // malloc only to ask for them again cost more than the analysis itself.
  if (spare_sections_.size() * sizeof(Section) < kSpareSectionBytes)
    spare_sections_.push_back(std::move(l->queue.front()));
  l->queue.pop_front();
  ++l->queue_base;
  --queue_entries_;
}

// Lines 11-12: rule (a), releases of other threads' sections on a held lock
// that touched x (named by VarOf) in a conflicting way.
void WcpEngine::RuleA(uint32_t tid, uint64_t var, bool write) {
  ThreadState& t = threads_[tid];
  // A read-mode section excludes only write-mode ones, so it is ordered only
  // after their releases.
  for (OpenSection& s : t.sections) {
    LockState& l = locks_.At(s.lock_index);
    const uint32_t x = l.vars.IndexOf(var);
    ReleaseTimes& r = l.vars.At(x);
    r.ForEachConflicting(tid, write, s.shared, [&](const ThreadRelease& c) {
      if (t.p.Get(c.tid) < c.latest) t.p.Join(*c.clock);
    });
    uint64_t& mark = write ? r.write_mark : r.read_mark;
    if (mark != s.id) {  // concurrent read-mode sections may list x twice: harmless
      mark = s.id;
      (write ? s.writes : s.reads).push_back(x);
    }
  }
}

// A free (`freed`) writes its whole block (sync_ops.h).
void WcpEngine::Access(uint32_t tid, const LoweredOp& op, bool freed) {
  ThreadState& t = threads_[tid];
  const bool write = freed || op.op == SyncOp::kWrite;
  // Section 3.2: the access races with every kept earlier conflicting access
  // whose WCP time is not below C_t = P_t[t := N_t].
  const AccessRecord record = AccessRecord::Of(*current_, t.n, !freed && op.atomic);
  auto known = [&t, tid](const Epoch& ep) { return ep.clock <= (ep.tid == tid ? t.n : t.p.Get(ep.tid)); };
  auto on_race = [this](const AccessRecord& a) { collector_.AddPair(a.ref(), EventRef::Of(*current_)); };
  shadow_.TwoPasses(
      op.object, op.size, freed, !t.sections.empty(), [&](Cell& c) { RuleA(tid, VarOf(c), write); },
      [&](Cell& c) { racy_ |= CheckAndRecord(&c.reads, &c.writes, record, write, known, on_race); });
}

Status WcpEngine::Finish(Findings* findings) {
  if (!thread_ids_.status().ok()) return thread_ids_.status();
  RaceResult result;
  collector_.Fill("wcp", Guarantee::kFirstIsReal, &result);
  findings->races.push_back(std::move(result));
  if (folded_sections_ > 0) {
    // Said only when it happened, so that reports of traces within the bound
    // are unchanged.
    findings->stats.push_back(AnalysisStats{"wcp",
                                            {{"critical sections over the queue memory bound, folded (may miss races)",
                                              static_cast<double>(folded_sections_)}}});
  }
  return Status::Ok();
}

// Here, with Access and RuleA, so that the event loop inlines them.
template class TwoClockEngine<WcpEngine, WcpOpenSection>;

std::unique_ptr<Engine> NewWcpEngine(const AnalysisOptions& options) { return std::make_unique<WcpEngine>(options); }

}  // namespace seer::predictor
