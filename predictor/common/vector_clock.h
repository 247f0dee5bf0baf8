// Vector clocks and epochs (FastTrack, Flanagan & Freund 2009), shared by the
// engines that order events by clocks. Clocks grow as threads appear: a missing
// entry is 0.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

namespace seer::predictor {

using ClockValue = uint32_t;

class VectorClock {
 public:
  VectorClock() = default;
  explicit VectorClock(size_t threads) : c_(Padded(threads), 0) {}

  ClockValue Get(uint32_t tid) const { return tid < c_.size() ? c_[tid] : 0; }
  void Set(uint32_t tid, ClockValue v) {
    if (tid >= c_.size()) c_.resize(Padded(tid + 1), 0);
    c_[tid] = v;
  }
  void Increment(uint32_t tid) { Set(tid, Get(tid) + 1); }

  // this := max(this, other), pointwise. These run on every synchronisation
  // event (several times per event in WCP): storage is kept a multiple of
  // kLanes entries (the padding is 0, which a missing entry means anyway) so
  // that each step compares kLanes entries at once, with no scalar tail.
  void Join(const VectorClock& other) {
    const size_t n = other.c_.size();
    if (n > c_.size()) c_.resize(n, 0);
    ClockValue* a = c_.data();
    const ClockValue* b = other.c_.data();
    for (size_t i = 0; i < n; i += kLanes) Store(a + i, Max(Load(a + i), Load(b + i)));
  }
  void CopyFrom(const VectorClock& other) {
    if (c_.size() != other.c_.size()) {
      c_ = other.c_;
      return;
    }
    ClockValue* a = c_.data();
    const ClockValue* b = other.c_.data();
    for (size_t i = 0; i < c_.size(); i += kLanes) Store(a + i, Load(b + i));  // inline: no memcpy call
  }

  // this <= other, pointwise.
  bool LessOrEqual(const VectorClock& other) const { return LessOrEqual(other, ~0u, 0); }
  // this <= other[tid := own], pointwise: a thread's current time when its own
  // entry is kept apart (WCP's C_t = P_t[t := N_t]).
  bool LessOrEqual(const VectorClock& other, uint32_t tid, ClockValue own) const {
    const size_t n = c_.size();
    const size_t common = n < other.c_.size() ? n : other.c_.size();
    const ClockValue* a = c_.data();
    const ClockValue* b = other.c_.data();
    if (tid < n && a[tid] > own) return false;
    // Entry tid is decided above: compare it against itself below.
    Mask exceeds{};
    for (size_t i = 0; i < common; i += kLanes) {
      Lanes y = Load(b + i);
      Lanes x = Load(a + i);
      if (tid - i < kLanes) y[tid - i] = x[tid - i];
      exceeds |= x > y;
    }
    for (size_t i = common; i < n; i += kLanes) {
      Lanes x = Load(a + i);
      if (tid - i < kLanes) x[tid - i] = 0;
      exceeds |= x > Lanes{};
    }
    return !Any(exceeds);
  }

  size_t size() const { return c_.size(); }
  // The entries, size() of them: for scans that compare many at once.
  const ClockValue* data() const { return c_.data(); }
  void Clear() {
    if (!c_.empty()) std::memset(c_.data(), 0, c_.size() * sizeof(ClockValue));
  }

 private:
  static constexpr size_t kLanes = 4;
  using Lanes = ClockValue __attribute__((vector_size(kLanes * sizeof(ClockValue))));
  using Mask = int32_t __attribute__((vector_size(kLanes * sizeof(ClockValue))));  // a lane comparison

  static size_t Padded(size_t n) { return (n + kLanes - 1) / kLanes * kLanes; }
  static Lanes Load(const ClockValue* p) {
    Lanes v;
    std::memcpy(&v, p, sizeof(v));
    return v;
  }
  static void Store(ClockValue* p, Lanes v) { std::memcpy(p, &v, sizeof(v)); }
  static Lanes Max(Lanes x, Lanes y) { return x < y ? y : x; }
  static bool Any(Mask v) {
    uint64_t halves[2];
    std::memcpy(halves, &v, sizeof(halves));
    return (halves[0] | halves[1]) != 0;
  }

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

}  // namespace seer::predictor
