#include "predictor/engines/hb/hb_engine.h"

namespace seer::predictor {

template <bool kSchedulable>
Status HappensBeforeEngine<kSchedulable>::Begin(const TraceInfo& info) {
  for (const ThreadInfo& t : info.threads)
    if (t.tid < kMaxThreads) EnsureThread(t.tid);
  return Status::Ok();
}

template <bool kSchedulable>
void HappensBeforeEngine<kSchedulable>::AddThreads(uint32_t tid) {
  while (clocks_.size() <= tid) {
    const uint32_t t = static_cast<uint32_t>(clocks_.size());
    clocks_.emplace_back();
    clocks_.back().Set(t, 1);
  }
}

template <bool kSchedulable>
void HappensBeforeEngine<kSchedulable>::Process(const Event* events, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const Event& e = events[i];
    if (!thread_ids_.Accept(e)) continue;
    current_ = &e;
    racy_ = false;
    if (IsPlainAccessEvent(e)) {
      EnsureThread(e.tid);
      Access(e.tid, PlainAccessOp(e));
    } else if (e.kind == EventKind::kAcquire || e.kind == EventKind::kRelease) {
      // Mutex operations are nearly half of a typical trace: no lowering dispatch
      // (they lower to themselves).
      EnsureThread(e.tid);
      if (e.kind == EventKind::kAcquire) {
        Acquire(e.tid, e.object, e.mode == static_cast<uint8_t>(LockMode::kShared));
      } else {
        Release(e.tid, e.object);
      }
    } else {
      lowering_.Lower(e, [&](const LoweredOp& op) { Apply(e.tid, op); });
    }
    if (racy_) collector_.AddRacyEvent(EventRef::Of(e));
  }
}

template <bool kSchedulable>
void HappensBeforeEngine<kSchedulable>::Apply(uint32_t tid, const LoweredOp& op) {
  EnsureThread(tid);
  switch (op.op) {
    case SyncOp::kRead:
    case SyncOp::kWrite: ForEachAccess(*current_, op, [&](const LoweredOp& a) { Access(tid, a); }); return;
    case SyncOp::kAcquire: Acquire(tid, op.object, op.shared); return;
    case SyncOp::kRelease: Release(tid, op.object); return;
    case SyncOp::kFork: {
      const uint32_t child = static_cast<uint32_t>(op.object);
      EnsureThread(child);
      clocks_[child].Join(clocks_[tid]);
      clocks_[tid].Increment(tid);
      return;
    }
    case SyncOp::kJoin: {
      const uint32_t child = static_cast<uint32_t>(op.object);
      EnsureThread(child);
      clocks_[tid].Join(clocks_[child]);
      return;
    }
    case SyncOp::kSignal:
      signals_[op.object].Join(clocks_[tid]);
      clocks_[tid].Increment(tid);
      return;
    case SyncOp::kWait: clocks_[tid].Join(signals_[op.object]); return;
    case SyncOp::kEndSignals:
      if (VectorClock* s = signals_.Find(op.object)) s->Clear();
      return;
    case SyncOp::kFresh: shadow_.Fresh(op.object, op.size); return;
    case SyncOp::kFree: Free(tid, op); return;
  }
}

template <bool kSchedulable>
void HappensBeforeEngine<kSchedulable>::Free(uint32_t tid, const LoweredOp& op) {
  bool join_pending = false;  // writes never join: stays false
  shadow_.ForEachFreed(op.object, op.size,
                       [&](Cell& c) { Visit(c, tid, /*write=*/true, /*atomic=*/false, &join_pending); });
  if constexpr (kSchedulable) clocks_[tid].Increment(tid);
}

template <bool kSchedulable>
void HappensBeforeEngine<kSchedulable>::Acquire(uint32_t tid, uint64_t lock, bool shared) {
  if (!held_.Acquire(tid, lock, shared)) return;
  LockClocks& l = locks_[lock];
  // A thread already knows the clock it released itself (clocks only grow).
  if (l.last_releaser != tid) clocks_[tid].Join(l.released);
  if (!shared) clocks_[tid].Join(l.read_released);
}

template <bool kSchedulable>
void HappensBeforeEngine<kSchedulable>::Release(uint32_t tid, uint64_t lock) {
  bool shared = false;
  if (!held_.Release(tid, lock, &shared)) return;
  LockClocks& l = locks_[lock];
  if (shared) {
    l.read_released.Join(clocks_[tid]);
  } else {
    l.released.CopyFrom(clocks_[tid]);
    l.last_releaser = tid;
  }
  clocks_[tid].Increment(tid);
}

template <bool kSchedulable>
void HappensBeforeEngine<kSchedulable>::Access(uint32_t tid, const LoweredOp& op) {
  const bool write = op.op == SyncOp::kWrite;
  bool join_pending = false;
  if (Cell* cell = shadow_.Exact(op.object, op.size)) {
    Visit(*cell, tid, write, op.atomic, &join_pending);
  } else {
    shadow_.Access(op.object, op.size, [&](Cell& c) { Visit(c, tid, write, op.atomic, &join_pending); });
  }
  if constexpr (kSchedulable) {
    // Checks first, then the edges (RAPID's order); a new local time after each
    // write, so that a reader learning this write learns nothing after it.
    if (join_pending) clocks_[tid].Join(pending_);
    if (write) clocks_[tid].Increment(tid);
  }
}

template <bool kSchedulable>
void HappensBeforeEngine<kSchedulable>::Visit(Cell& cell, uint32_t tid, bool write, bool atomic, bool* join_pending) {
  const VectorClock& c = clocks_[tid];
  const AccessRecord record = AccessRecord::Of(*current_, c.Get(tid), atomic);
  auto known = [&c](const Epoch& ep) { return ep.clock <= c.Get(ep.tid); };
  auto on_race = [this](const AccessRecord& a) { collector_.AddPair(a.ref(), EventRef::Of(*current_)); };
  racy_ |= CheckAndRecord(&cell.reads, &cell.writes, record, write, known, on_race);
  if constexpr (kSchedulable) {
    if (write) {
      cell.last_write_epoch = record.epoch();
      cell.last_write.CopyFrom(c);
    } else if (!cell.last_write_epoch.IsNone() && !known(cell.last_write_epoch)) {
      // The read is ordered after the write it saw; a known write adds nothing.
      if (!*join_pending) pending_.Clear();
      pending_.Join(cell.last_write);
      *join_pending = true;
    }
  }
}

template <bool kSchedulable>
Status HappensBeforeEngine<kSchedulable>::Finish(Findings* findings) {
  if (!thread_ids_.status().ok()) return thread_ids_.status();
  RaceResult result;
  if constexpr (kSchedulable) {
    collector_.Fill("shb", Guarantee::kAllReal, &result);
  } else {
    collector_.Fill("hb", Guarantee::kFirstIsReal, &result);
  }
  findings->races.push_back(std::move(result));
  return Status::Ok();
}

template class HappensBeforeEngine<false>;
template class HappensBeforeEngine<true>;

std::unique_ptr<Engine> NewHbEngine(const AnalysisOptions&) { return std::make_unique<HappensBeforeEngine<false>>(); }

}  // namespace seer::predictor
