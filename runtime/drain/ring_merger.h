// Turns the runtime's ring records, copied out in batches by RingCollector, into
// one ordered stream of seer Events: ordered records (sync events, atomics,
// alloc/free) in global-sequence order, each thread's plain accesses between its
// own ordered records in program order. docs/runtime.md has the details.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "runtime/drain/ring_collector.h"
#include "runtime/ring_layout.h"
#include "seer/event.h"
#include "seer/status.h"
#include "seer/trace.h"

namespace seer {

class RingMerger {
 public:
  // `shm` (for the thread table and loss counters) must outlive the merger.
  explicit RingMerger(rt::ShmHeader* shm);

  using Sink = std::function<Status(const Event&)>;

  // Takes a batch (batches in the order collected) and delivers to `sink`
  // everything that can be ordered now. *emitted (optional): events delivered.
  Status Add(RingBatch* batch, const Sink& sink, uint64_t* emitted = nullptr);

  // The thread table: one entry per thread that appeared in the stream.
  std::vector<ThreadInfo> Threads() const;

  // Records dropped by producers on overflow, by kind, summed over rings.
  std::vector<uint64_t> LostByKind() const;
  // Threads that found no free ring (all their events are lost).
  uint64_t ThreadsWithoutRing() const;

 private:
  struct Pending {
    std::vector<uint64_t> words;  // copied, not yet delivered
    size_t pos = 0;               // next word to deliver
    int64_t tid = -1;             // dense seer thread id, -1 until the thread appears
  };

  // Delivers ring `ring`'s plain records up to its next ordered one, which it
  // leaves in place.
  Status EmitUntilOrdered(uint32_t ring, const Sink& sink);
  // Delivers the ordered record at the ring's position.
  Status EmitOrdered(uint32_t ring, const Sink& sink);
  // The sequence number of the ring's next ordered record, or kNoSeq.
  uint64_t PeekOrderedSeq(uint32_t ring) const;
  uint32_t TidOf(uint32_t ring);
  Status Damaged(uint32_t ring, const std::string& what) const;

  rt::ShmHeader* shm_;
  std::vector<Pending> rings_;
  uint32_t next_tid_ = 0;
  uint64_t delivered_ = 0;
};

}  // namespace seer
