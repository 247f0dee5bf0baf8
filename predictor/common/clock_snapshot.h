// A vector clock shared by reference among the places that publish one
// release's time (WCP's and CP's per-variable release times: one copy per
// release, not per variable). The reference count is single-threaded:
// std::shared_ptr's atomic one costs more than the rest of a publication.
// Unused snapshots go back to their pool, which must outlive every reference,
// and are reused with their clock storage: no allocation per release.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "predictor/common/vector_clock.h"

namespace seer::predictor {

class ClockSnapshotRef;

class ClockSnapshotPool {
 public:
  // A snapshot holding a copy of `clock`.
  ClockSnapshotRef Take(const VectorClock& clock);

 private:
  friend class ClockSnapshotRef;
  struct Snapshot {
    uint32_t refs = 0;
    VectorClock clock;
    ClockSnapshotPool* pool = nullptr;
  };
  std::vector<std::unique_ptr<Snapshot>> free_;
};

class ClockSnapshotRef {
 public:
  ClockSnapshotRef() = default;
  ClockSnapshotRef(const ClockSnapshotRef& o) : s_(o.s_) {
    if (s_) ++s_->refs;
  }
  ClockSnapshotRef& operator=(const ClockSnapshotRef& o) {
    if (o.s_) ++o.s_->refs;
    Drop();
    s_ = o.s_;
    return *this;
  }
  ~ClockSnapshotRef() { Drop(); }
  const VectorClock& operator*() const { return s_->clock; }
  explicit operator bool() const { return s_ != nullptr; }

 private:
  friend class ClockSnapshotPool;
  explicit ClockSnapshotRef(ClockSnapshotPool::Snapshot* s) : s_(s) { ++s_->refs; }
  void Drop() {
    if (s_ && --s_->refs == 0) s_->pool->free_.emplace_back(s_);
  }
  ClockSnapshotPool::Snapshot* s_ = nullptr;
};

inline ClockSnapshotRef ClockSnapshotPool::Take(const VectorClock& clock) {
  Snapshot* s;
  if (free_.empty()) {
    s = new Snapshot;
    s->pool = this;
  } else {
    s = free_.back().release();
    free_.pop_back();
  }
  s->clock.CopyFrom(clock);
  return ClockSnapshotRef(s);
}

}  // namespace seer::predictor
