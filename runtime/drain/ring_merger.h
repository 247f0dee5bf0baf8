// Turns the runtime's per-thread rings into one ordered stream of seer Events:
// ordered records (sync events, atomics, alloc/free) in global-sequence order,
// each thread's plain accesses between its own ordered records in program order.
// Runs in the recorder, concurrently with the target; docs/runtime.md has the protocol.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "runtime/ring_layout.h"
#include "seer/event.h"
#include "seer/status.h"
#include "seer/trace.h"

namespace seer {

class RingMerger {
 public:
  // `shm` is the mapped shared area; it must outlive the merger.
  explicit RingMerger(rt::ShmHeader* shm);

  using Sink = std::function<Status(const Event&)>;

  // Moves everything that can be ordered now to `sink` and frees its ring space.
  // `final` says the target is gone: every published record is ordered, and
  // threads that died holding a sequence number are not waited for.
  // *emitted (optional) receives the number of events delivered.
  Status Drain(bool final, const Sink& sink, uint64_t* emitted = nullptr);

  // The thread table: one entry per thread that appeared in the stream.
  std::vector<ThreadInfo> Threads() const;

  // Records dropped by producers on overflow, by kind, summed over rings.
  std::vector<uint64_t> LostByKind() const;
  // Threads that found no free ring (all their events are lost).
  uint64_t ThreadsWithoutRing() const;

 private:
  struct Cursor {
    uint64_t pos = 0;        // next word to read
    uint64_t head = 0;       // published end seen this round
    int64_t tid = -1;        // dense seer thread id, -1 until the thread appears
  };

  // Reads ring `ring`'s records from its cursor: delivers plain records until
  // the next ordered one, which it leaves in place; *next_seq receives that
  // record's sequence number (kNoSeq when the ring is exhausted).
  Status EmitUntilOrdered(uint32_t ring, const Sink& sink, uint64_t* next_seq);
  // The sequence number of the ring's next published ordered record, or kNoSeq.
  uint64_t PeekOrderedSeq(uint32_t ring) const;
  Status EmitOrdered(uint32_t ring, const Sink& sink);
  uint32_t TidOf(uint32_t ring);
  uint64_t Word(uint32_t ring, uint64_t pos) const;
  Status Deliver(const Event& e, const Sink& sink);

  rt::ShmHeader* shm_;
  std::vector<Cursor> cursors_;
  uint32_t next_tid_ = 0;
  uint64_t emitted_ = 0;
};

}  // namespace seer
