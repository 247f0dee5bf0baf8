// The skeleton of the engines whose threads keep two clocks, an HB time H_t and
// the time P_t of a weaker order (wcp, cp): thread setup, the event loop,
// fork/join, and the shadow cell with its rule (a) name. Each engine adds only
// what is its own: its locks, signals, accesses and rules.
//
// A CRTP template, as hb_engine.h's HB/SHB template is, so that the per-event
// path stays one loop with the engine's steps inlined into it. Each engine's
// .cc instantiates it explicitly, where its `[[gnu::always_inline]]` steps are
// defined, and its header declares that instantiation `extern`: no other file
// compiles the loop without them.
#pragma once

#include <cstdint>
#include <vector>

#include "predictor/common/access_history.h"
#include "predictor/common/held_locks.h"
#include "predictor/common/race_collector.h"
#include "predictor/common/shadow_memory.h"
#include "predictor/common/sync_ops.h"
#include "predictor/common/thread_ids.h"
#include "predictor/common/vector_clock.h"
#include "predictor/engine.h"

namespace seer::predictor {

// What a thread knows. `OpenSection` is the engine's record of a critical
// section the thread is inside.
template <class OpenSection>
struct TwoClockThread {
  ClockValue n = 1;  // N_t, the local time; h(t) is kept equal to it
  VectorClock h, p;  // H_t, P_t
  std::vector<OpenSection> sections;
  bool finished = false;  // ended or joined: its place in the locks' queues no longer counts
};

// `Derived` (a friend of this template) provides the steps the loop calls:
//   void Access(uint32_t tid, const LoweredOp& op, bool freed);  // freed: a free, a write of the block
//   void Acquire(uint32_t tid, uint64_t lock, bool shared);      // outermost acquires only
//   void Release(uint32_t tid, uint64_t lock, bool shared);      // outermost releases only
//   void Signal(uint32_t tid, uint64_t object);  // then the local time moves on (Tick)
//   void Wait(uint32_t tid, uint64_t object);
//   void EndSignals(uint64_t object);
// and may hide the hooks below that do nothing here.
template <class Derived, class Open>
class TwoClockEngine : public Engine {
 public:
  Status Begin(const TraceInfo& info) override;
  void Process(const Event* events, size_t n) override;

  const RaceCollector& collector() const { return collector_; }

 protected:
  using OpenSection = Open;
  using ThreadState = TwoClockThread<OpenSection>;
  struct Cell {
    AccessHistory reads, writes;
    uint64_t var = 0;  // rule (a)'s name of these bytes (VarOf); 0: not named yet
  };

  TwoClockEngine() = default;

  void EnsureThread(uint32_t tid) {
    if (tid >= threads_.size()) AddThreads(tid);
  }
  void AddThreads(uint32_t up_to);
  void Tick(uint32_t tid);
  // A hard order (fork, join): `from`'s HB time enters both of `to`'s clocks,
  // as an edge of every relation (RAPID).
  void ReceiveHb(uint32_t to, uint32_t from) {
    threads_[to].h.Join(threads_[from].h);
    threads_[to].p.Join(threads_[from].h);
  }
  void Apply(uint32_t tid, const LoweredOp& op);
  uint64_t VarOf(Cell& c);

  // Hooks. Before each accepted event:
  void OnEvent() {}
  // After an event found racy, which the collector has counted:
  void OnRacyEvent(const Event& e) { (void)e; }
  // A release HeldLocks does not pass on: an inner release of a recursive
  // lock, or a release of a lock not held.
  void InnerRelease(uint32_t tid, uint64_t lock) {
    (void)tid;
    (void)lock;
  }

  std::vector<ThreadState> threads_;
  EventLowering lowering_;
  HeldLocks held_;
  ShadowMemory<Cell> shadow_;
  RaceCollector collector_;
  ThreadIdCheck thread_ids_;
  uint64_t cell_vars_ = 0;          // names VarOf gave so far
  uint64_t sections_opened_ = 0;    // for the engines' unique section ids
  const Event* current_ = nullptr;  // the event being processed
  bool racy_ = false;               // the current event raced

 private:
  Derived& self() { return static_cast<Derived&>(*this); }
};

template <class Derived, class Open>
Status TwoClockEngine<Derived, Open>::Begin(const TraceInfo& info) {
  // Knowing every thread up front keeps each lock's queue of sections for
  // threads that have not run yet (WCP's Acq_l(t) exists for every t from the
  // start; CP's history likewise).
  for (const ThreadInfo& t : info.threads)
    if (t.tid < kMaxThreads) EnsureThread(t.tid);
  return Status::Ok();
}

template <class Derived, class Open>
void TwoClockEngine<Derived, Open>::AddThreads(uint32_t tid) {
  while (threads_.size() <= tid) {
    const uint32_t t = static_cast<uint32_t>(threads_.size());
    threads_.emplace_back();
    threads_.back().h.Set(t, 1);
  }
}

template <class Derived, class Open>
void TwoClockEngine<Derived, Open>::Process(const Event* events, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const Event& e = events[i];
    if (!thread_ids_.Accept(e)) continue;
    current_ = &e;
    racy_ = false;
    self().OnEvent();
    EnsureThread(e.tid);
    if (e.kind == EventKind::kThreadEnd) threads_[e.tid].finished = true;
    if (IsPlainAccessEvent(e)) {
      // Most events: no lowering dispatch.
      self().Access(e.tid, PlainAccessOp(e), /*freed=*/false);
    } else {
      lowering_.LowerInline(e, [&](const LoweredOp& op) { Apply(e.tid, op); });
    }
    if (racy_) {
      collector_.AddRacyEvent(EventRef::Of(e));
      self().OnRacyEvent(e);
    }
  }
}

// The local time moves on after every event that publishes the thread's time
// (release, fork, signal), so that an epoch names the events up to a
// publication: WCP's "incremented before an event iff the previous event was a
// release", done eagerly.
template <class Derived, class Open>
void TwoClockEngine<Derived, Open>::Tick(uint32_t tid) {
  ThreadState& t = threads_[tid];
  ++t.n;
  t.h.Set(tid, t.n);
}

template <class Derived, class Open>
void TwoClockEngine<Derived, Open>::Apply(uint32_t tid, const LoweredOp& op) {
  switch (op.op) {
    case SyncOp::kRead:
    case SyncOp::kWrite:
      ForEachAccess(*current_, op, [&](const LoweredOp& a) { self().Access(tid, a, /*freed=*/false); });
      return;
    case SyncOp::kAcquire:
      if (held_.Acquire(tid, op.object, op.shared)) self().Acquire(tid, op.object, op.shared);
      return;
    case SyncOp::kRelease: {
      bool shared = false;
      if (held_.Release(tid, op.object, &shared)) {
        self().Release(tid, op.object, shared);
      } else {
        self().InnerRelease(tid, op.object);
      }
      return;
    }
    case SyncOp::kFork: {
      const uint32_t child = static_cast<uint32_t>(op.object);
      EnsureThread(child);
      ReceiveHb(child, tid);
      Tick(tid);
      return;
    }
    case SyncOp::kJoin: {
      const uint32_t child = static_cast<uint32_t>(op.object);
      EnsureThread(child);
      ReceiveHb(tid, child);
      threads_[child].finished = true;
      return;
    }
    case SyncOp::kSignal:
      self().Signal(tid, op.object);
      Tick(tid);
      return;
    case SyncOp::kWait: self().Wait(tid, op.object); return;
    case SyncOp::kEndSignals: self().EndSignals(op.object); return;
    case SyncOp::kFresh: shadow_.Fresh(op.object, op.size); return;
    case SyncOp::kFree: self().Access(tid, op, /*freed=*/true); return;
  }
}

// Rule (a)'s name of a cell's bytes: one per group of bytes always accessed
// together, so that overlapping accesses that start at different addresses
// (ranges, unaligned accesses, struct copies) meet under one name, and bytes
// only ever accessed alone (RAPID's one-byte variables) keep their own. The
// parts of a split cell keep its name: they conflict a little more than their
// bytes do, which only adds order. An allocation there makes new cells, so a
// new block is a new variable for rule (a) too.
template <class Derived, class Open>
uint64_t TwoClockEngine<Derived, Open>::VarOf(Cell& c) {
  if (c.var == 0) c.var = ++cell_vars_;
  return c.var;
}

}  // namespace seer::predictor
