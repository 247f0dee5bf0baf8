// Joins the two streams of `seer record --sync=ebpf` on a binary built with
// seer's runtime: the eBPF merger's sync events (their total order is kept) and
// the runtime's ring records (accesses, atomics, alloc/free, calls). Each sync
// event carries a stamp, its thread's ring head when it happened, so a thread's
// records with a lower ring position go before it and the others after: each
// thread's program order is exact. Across threads, records keep the ring
// merger's order where that does not contradict the sync order; otherwise a
// thread's records are placed just before its next sync event.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <unordered_map>
#include <vector>

#include "recorder/merge/ring_merger.h"
#include "seer/event.h"
#include "seer/ring_layout.h"
#include "seer/status.h"

namespace seer::recorder {

struct JoinStats {
  uint64_t reordered = 0;  // runtime records placed ahead of the ring merger's order
  uint64_t orphaned = 0;   // runtime records of a thread the probes never saw begin (dropped)
};

class AccessJoiner {
 public:
  using Sink = std::function<Status(const Event&)>;

  // True while the eBPF merger holds sync events of an OS thread back (behind
  // a closed gate): they were stamped but have not reached the joiner.
  using HeldFn = std::function<bool(pid_t os_tid)>;

  // `shm` (the rings' descriptors) and `rings` (for how far each ring has been
  // delivered) must outlive the joiner.
  AccessJoiner(rt::ShmHeader* shm, const RingMerger* rings, HeldFn held, Sink sink)
      : shm_(shm), rings_(rings), held_(std::move(held)), sink_(std::move(sink)) {}

  // A sync event from the eBPF merger, in its order (EventMerger::origin()).
  void AddSync(const Event& e, pid_t os_tid, uint64_t stamp);
  // A runtime record from the ring merger, in its order (RingMerger::origin()),
  // copied out of its ring before `collected_ns` (CLOCK_MONOTONIC).
  void AddRuntime(const Event& e, uint32_t ring, uint64_t word, uint64_t collected_ns);
  // Every sync event that happened before `ns` has reached the joiner or is
  // held (HeldFn): a record collected before it needs no later sync event of
  // its thread to know its place.
  void SetWatermark(uint64_t ns) { watermark_ = ns; }

  // Emits everything that can be placed now: a sync event once its thread's
  // records below its stamp have been delivered. `final`: both sources are
  // exhausted; everything left is emitted.
  Status Pump(bool final);

  const JoinStats& stats() const { return stats_; }

 private:
  struct SyncItem {
    Event e;
    pid_t os_tid;
    uint64_t stamp;  // records below it go first; UINT64_MAX: all of them (thread end)
    // A thread end's own stamp: once delivered up to it, the ring is complete
    // (the thread writes nothing after its exit). UINT64_MAX: unknown.
    uint64_t complete_at = UINT64_MAX;
  };
  struct RuntimeItem {
    Event e;
    uint32_t ring;
    uint64_t word;
    uint64_t collected_ns;
    uint64_t seq;  // position in the ring merger's order
  };
  struct Thread {
    int64_t tid = -1;  // seer tid, once the thread's begin is emitted
    bool ended = false;
    uint64_t received = 0;         // highest stamp received: no record below it has a sync event still to come
    std::deque<uint64_t> pending;  // stamps of received, unemitted sync events
    int32_t ring = -1;             // -1: not looked up yet (or no ring)
  };

  int32_t RingOf(pid_t os_tid);
  pid_t OsTidOf(uint32_t ring) const;
  bool Ready(const SyncItem& s);
  // Where a record stands: it may go now; it may not go before its thread's
  // pending sync events (emitting it first would break the sync order); or it
  // is too early to tell.
  enum class Place { kFree, kGated, kUnknown };
  Place PlaceOf(const RuntimeItem& r);
  // The ring whose first waiting record comes first in the ring merger's
  // order, among rings not in `excluded`; -1 if none has records waiting.
  int32_t EarliestRing(const std::vector<bool>& excluded) const;
  // Emits ring `ring`'s first waiting record.
  Status EmitRuntime(uint32_t ring);
  // Emits `s` after its thread's records below its stamp; *emitted false when
  // a record before those in the ring merger's order cannot be placed yet.
  Status EmitSync(const SyncItem& s, bool final, bool* emitted);

  rt::ShmHeader* shm_;
  const RingMerger* rings_;
  HeldFn held_;
  Sink sink_;
  uint64_t watermark_ = 0;
  std::deque<SyncItem> sync_;
  std::vector<std::deque<RuntimeItem>> queued_;  // per ring: its records not emitted yet, in order
  std::vector<bool> excluded_;                   // EmitSync's scratch, kept to avoid an allocation per sync event
  uint64_t next_seq_ = 0;
  std::unordered_map<pid_t, Thread> threads_;
  JoinStats stats_;
};

}  // namespace seer::recorder
