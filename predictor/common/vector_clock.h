// Vector clocks and epochs (FastTrack, Flanagan & Freund 2009), shared by the
// engines that order events by clocks. Clocks grow as threads appear: a missing
// entry is 0.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace seer {

using ClockValue = uint32_t;

class VectorClock {
 public:
  VectorClock() = default;
  explicit VectorClock(size_t threads) : c_(threads, 0) {}

  ClockValue Get(uint32_t tid) const { return tid < c_.size() ? c_[tid] : 0; }
  void Set(uint32_t tid, ClockValue v) {
    if (tid >= c_.size()) c_.resize(tid + 1, 0);
    c_[tid] = v;
  }
  void Increment(uint32_t tid) { Set(tid, Get(tid) + 1); }

  // this := max(this, other), pointwise.
  void Join(const VectorClock& other) {
    if (other.c_.size() > c_.size()) c_.resize(other.c_.size(), 0);
    for (size_t i = 0; i < other.c_.size(); ++i) c_[i] = std::max(c_[i], other.c_[i]);
  }
  void CopyFrom(const VectorClock& other) { c_ = other.c_; }

  // this <= other, pointwise.
  bool LessOrEqual(const VectorClock& other) const {
    for (size_t i = 0; i < c_.size(); ++i)
      if (c_[i] > other.Get(static_cast<uint32_t>(i))) return false;
    return true;
  }

  size_t size() const { return c_.size(); }
  void Clear() { std::fill(c_.begin(), c_.end(), 0); }

 private:
  std::vector<ClockValue> c_;
};

// An epoch c@t: the clock value of one thread. Fits in 64 bits.
struct Epoch {
  uint32_t tid = 0;
  ClockValue clock = 0;  // 0 = no event yet

  bool IsNone() const { return clock == 0; }
  // c@t happens before (or is) the current time of the thread holding `vc`.
  bool LessOrEqual(const VectorClock& vc) const { return clock <= vc.Get(tid); }
};

}  // namespace seer
