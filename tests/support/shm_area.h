// A runtime shared area in test memory, laid out as the runtime leaves it
// (header, ring descriptors, rings), for tests that feed hand-written rings to
// the recorder side (RingMerger, AccessJoiner) without a running program.
#pragma once

#include <cstdint>
#include <memory>
#include <new>

#include "seer/ring_layout.h"

namespace seer::test {

class ShmArea {
 public:
  ShmArea(uint32_t rings, uint64_t ring_words) : bytes_(new char[rt::ShmBytes(rings, ring_words) + kAlign]) {
    void* p = bytes_.get() + (kAlign - reinterpret_cast<uintptr_t>(bytes_.get()) % kAlign) % kAlign;
    shm = new (p) rt::ShmHeader();
    shm->max_rings = rings;
    shm->ring_words = ring_words;
    shm->ring_offset = rt::RingOffset(rings);
    shm->next_ring.store(rings);
    for (uint32_t i = 0; i < rings; ++i) new (&rt::RingDescs(shm)[i]) rt::RingDesc();
  }

  rt::ShmHeader* shm;

 private:
  static constexpr uintptr_t kAlign = 64;  // the header is cache-line aligned in real shared memory
  std::unique_ptr<char[]> bytes_;
};

}  // namespace seer::test
