// The locks each thread holds, with recursion depth and mode, so that engines see
// only the outermost acquire/release of a recursive lock (docs/analyses.md,
// "Shared choices"). A release of a lock the thread does not hold is
// reported as not outermost, and engines ignore it.
#pragma once

#include <cstdint>
#include <vector>

namespace seer::predictor {

struct HeldLock {
  uint64_t lock = 0;
  uint32_t depth = 0;
  bool shared = false;  // read-mode (rwlock) section
};

class HeldLocks {
 public:
  // True when this is the outermost acquire of `lock` by `tid`.
  bool Acquire(uint32_t tid, uint64_t lock, bool shared) {
    std::vector<HeldLock>& held = Of(tid);
    for (HeldLock& h : held)
      if (h.lock == lock) {
        ++h.depth;
        return false;
      }
    held.push_back(HeldLock{lock, 1, shared});
    return true;
  }

  // True when this is the outermost release; *shared gets the section's mode.
  bool Release(uint32_t tid, uint64_t lock, bool* shared) {
    std::vector<HeldLock>& held = Of(tid);
    for (size_t i = 0; i < held.size(); ++i) {
      if (held[i].lock != lock) continue;
      if (--held[i].depth > 0) return false;
      *shared = held[i].shared;
      held.erase(held.begin() + static_cast<long>(i));
      return true;
    }
    return false;
  }

  // Outermost held locks of `tid`, in acquisition order.
  std::vector<HeldLock>& Of(uint32_t tid) {
    if (tid >= threads_.size()) threads_.resize(tid + 1);
    return threads_[tid];
  }

 private:
  std::vector<std::vector<HeldLock>> threads_;
};

}  // namespace seer::predictor
