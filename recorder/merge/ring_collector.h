// Copies what the runtime's threads published in their shared rings out to the
// recorder's memory, quickly, so that ring space is free again long before the
// records are merged and encoded (RingMerger does that, in another thread).
// The only reader of the rings; docs/runtime.md describes the protocol.
#pragma once

#include <cstdint>
#include <vector>

#include "recorder/merge/spool_arena.h"
#include "seer/ring_layout.h"

namespace seer::recorder {

// Copied ring words live in the spool arena (huge pages, reused first in, first out).
using RingWords = std::vector<uint64_t, SpoolAllocator<uint64_t>>;

// One round's copy of every ring's newly published records.
struct RingBatch {
  bool final = false;            // the target is gone: nothing more will come
  std::vector<RingWords> words;  // per ring, whole records
  uint64_t bytes() const;
};

class RingCollector {
 public:
  explicit RingCollector(rt::ShmHeader* shm) : shm_(shm) {}

  // Copies everything published since the last call and frees the ring space.
  // `final`: the target is gone, this is the last batch. False when there was
  // nothing to copy (and it is not final).
  bool Collect(bool final, RingBatch* out);

  // Attach mode's detach: from now on copies nothing published after this
  // call. The program runs on, and its later records would have no sync events
  // to be placed among.
  void StopAtCurrentHeads();
  // After StopAtCurrentHeads: where ring `ring` was cut (0 for a ring claimed after).
  uint64_t StopHead(uint32_t ring) const { return ring < stop_heads_.size() ? stop_heads_[ring] : 0; }

 private:
  rt::ShmHeader* shm_;
  bool stopped_ = false;
  std::vector<uint64_t> stop_heads_;  // stopped_: each ring's last word to copy, exclusive
};

}  // namespace seer::recorder
