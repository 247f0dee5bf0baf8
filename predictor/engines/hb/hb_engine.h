// Happens-before race detection (Lamport order; FastTrack-style epochs, Flanagan
// & Freund 2009), and its schedulable variant SHB (Mathur, Kini, Viswanathan,
// OOPSLA 2018), which adds an edge from each read's last write to the read and
// so reports only real races. One template serves both: SHB is HB plus a clock
// per location for its last write. docs/analyses.md describes the choices.
#pragma once

#include <memory>
#include <vector>

#include "predictor/common/access_history.h"
#include "predictor/common/flat_map.h"
#include "predictor/common/held_locks.h"
#include "predictor/common/race_collector.h"
#include "predictor/common/shadow_memory.h"
#include "predictor/common/sync_ops.h"
#include "predictor/common/thread_ids.h"
#include "predictor/common/vector_clock.h"
#include "predictor/engine.h"

namespace seer::predictor {

template <bool kSchedulable>
class HappensBeforeEngine : public Engine {
 public:
  HappensBeforeEngine() = default;

  Status Begin(const TraceInfo& info) override;
  void Process(const Event* events, size_t n) override;
  Status Finish(Findings* findings) override;

  const RaceCollector& collector() const { return collector_; }

 private:
  struct HbCell {
    AccessHistory reads, writes;
  };
  struct ShbCell : HbCell {
    Epoch last_write_epoch;  // clock 0: no write yet
    VectorClock last_write;  // clock of the last write, joined into later readers
  };
  using Cell = std::conditional_t<kSchedulable, ShbCell, HbCell>;

  // Read-mode sections of an rwlock publish into read_released, which only a
  // write-mode acquire joins (as tsan does): readers are not ordered with readers.
  struct LockClocks {
    VectorClock released;
    VectorClock read_released;
    uint32_t last_releaser = ~0u;  // thread of the last write-mode release
  };

  void EnsureThread(uint32_t tid) {
    if (tid >= clocks_.size()) AddThreads(tid);
  }
  void AddThreads(uint32_t up_to);
  void Apply(uint32_t tid, const LoweredOp& op);
  // The per-event steps are inlined into Process: a call per access cost more
  // than the step itself on the common race-free path.
  [[gnu::always_inline]] inline void Acquire(uint32_t tid, uint64_t lock, bool shared);
  [[gnu::always_inline]] inline void Release(uint32_t tid, uint64_t lock);
  [[gnu::always_inline]] inline void Access(uint32_t tid, const LoweredOp& op);
  // A free: a write of the whole block (sync_ops.h).
  void Free(uint32_t tid, const LoweredOp& op);
  // Checks and records one access against one cell's history.
  [[gnu::always_inline]] inline void Visit(Cell& cell, uint32_t tid, bool write, bool atomic, bool* join_pending);

  std::vector<VectorClock> clocks_;  // C_t
  FlatMap64<LockClocks> locks_;
  FlatMap64<VectorClock> signals_;  // signal/wait and barrier objects
  EventLowering lowering_;
  HeldLocks held_;
  ShadowMemory<Cell> shadow_;
  RaceCollector collector_;
  ThreadIdCheck thread_ids_;
  VectorClock pending_;             // SHB: last-write clocks a read joins after its checks
  const Event* current_ = nullptr;  // the event being processed
  bool racy_ = false;
};

std::unique_ptr<Engine> NewHbEngine(const AnalysisOptions& options);

}  // namespace seer::predictor
