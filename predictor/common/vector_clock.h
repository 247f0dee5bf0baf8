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

  // this := max(this, other), pointwise. Clocks are a handful of entries and
  // these run on every synchronisation event: plain loops, no bounds checks.
  void Join(const VectorClock& other) {
    const size_t n = other.c_.size();
    if (n > c_.size()) c_.resize(n, 0);
    ClockValue* a = c_.data();
    const ClockValue* b = other.c_.data();
    for (size_t i = 0; i < n; ++i) a[i] = a[i] < b[i] ? b[i] : a[i];
  }
  void CopyFrom(const VectorClock& other) {
    if (c_.size() != other.c_.size()) {
      c_ = other.c_;
      return;
    }
    ClockValue* a = c_.data();
    const ClockValue* b = other.c_.data();
    for (size_t i = 0; i < c_.size(); ++i) a[i] = b[i];
  }

  // this <= other, pointwise.
  bool LessOrEqual(const VectorClock& other) const { return LessOrEqual(other, ~0u, 0); }
  // this <= other[tid := own], pointwise: a thread's current time when its own
  // entry is kept apart (WCP's C_t = P_t[t := N_t]).
  bool LessOrEqual(const VectorClock& other, uint32_t tid, ClockValue own) const {
    const size_t common = std::min(c_.size(), other.c_.size());
    const ClockValue* a = c_.data();
    const ClockValue* b = other.c_.data();
    for (size_t i = 0; i < common; ++i)
      if (a[i] > (i == tid ? own : b[i])) return false;
    for (size_t i = common; i < c_.size(); ++i)
      if (a[i] > (i == tid ? own : 0)) return false;
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
