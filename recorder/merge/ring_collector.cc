#include "recorder/merge/ring_collector.h"

#include <algorithm>

namespace seer::recorder {
uint64_t RingBatch::bytes() const {
  uint64_t n = 0;
  for (const auto& w : words) n += w.size() * sizeof(uint64_t);
  return n;
}

bool RingCollector::Collect(bool final, RingBatch* out) {
  out->final = final;
  const uint32_t rings = stopped_ ? static_cast<uint32_t>(stop_heads_.size())
                                  : std::min(shm_->next_ring.load(std::memory_order_acquire), shm_->max_rings);
  out->words.assign(rings, {});
  rt::RingDesc* descs = rt::RingDescs(shm_);
  std::vector<uint64_t> heads(rings);
  const uint64_t capacity = shm_->ring_words;
  for (uint32_t r = 0; r < rings; ++r) {
    heads[r] = stopped_ ? stop_heads_[r] : descs[r].head.load(std::memory_order_acquire);
    // The target is gone: also what its threads wrote but had not published
    // (ring_layout.h, WrittenWords). A count below the published head (a
    // thread killed while moving its cursor) or a ring beyond it is ignored.
    if (final && !stopped_) {
      const uint64_t written = rt::WrittenWords(descs[r]);
      if (written > heads[r] && written - heads[r] <= capacity) heads[r] = written;
    }
  }
  bool copied = false;
  for (uint32_t r = 0; r < rings; ++r) {
    const uint64_t tail = descs[r].tail.load(std::memory_order_relaxed);
    // A head beyond the ring is damage (the program wrote over the shared
    // area): take the last ring-full and let the merger report what it finds.
    const uint64_t from = heads[r] - tail > capacity ? heads[r] - capacity : tail;
    const uint64_t n = heads[r] - from;
    if (n == 0) continue;
    RingWords& dst = out->words[r];
    dst.reserve(n);  // copied straight in, without zero-filling first
    const uint64_t* data = rt::RingData(shm_, r);
    const uint64_t start = from & (capacity - 1);
    const uint64_t first = std::min(n, capacity - start);
    dst.insert(dst.end(), data + start, data + start + first);
    if (first < n) dst.insert(dst.end(), data, data + (n - first));
    descs[r].tail.store(heads[r], std::memory_order_release);
    copied = true;
  }
  return copied || final;
}

void RingCollector::StopAtCurrentHeads() {
  const uint32_t rings = std::min(shm_->next_ring.load(std::memory_order_acquire), shm_->max_rings);
  stop_heads_.resize(rings);
  for (uint32_t r = 0; r < rings; ++r) stop_heads_[r] = rt::RingDescs(shm_)[r].head.load(std::memory_order_acquire);
  stopped_ = true;
}

}  // namespace seer::recorder
