#include "recorder/ebpf/access_joiner.h"

#include <algorithm>

#include "bpf/sync_event.h"

namespace seer::recorder {
namespace {

constexpr uint64_t kAll = UINT64_MAX;

}  // namespace

pid_t AccessJoiner::OsTidOf(uint32_t ring) const { return static_cast<pid_t>(rt::RingDescs(shm_)[ring].os_tid); }

int32_t AccessJoiner::RingOf(pid_t os_tid) {
  Thread& t = threads_[os_tid];
  if (t.ring >= 0) return t.ring;
  // The newest ring of this tid: kernel tids are reused once a thread is gone.
  const uint32_t n = std::min(shm_->next_ring.load(std::memory_order_acquire), shm_->max_rings);
  rt::RingDesc* descs = rt::RingDescs(shm_);
  for (uint32_t r = n; r-- > 0;)
    if (descs[r].os_tid == os_tid) return t.ring = static_cast<int32_t>(r);
  return -1;
}

void AccessJoiner::AddSync(const Event& e, pid_t os_tid, uint64_t stamp) {
  Thread& t = threads_[os_tid];
  if (e.kind == EventKind::kThreadBegin) t.ring = -1;  // a reused tid: find its new ring
  // A thread's end follows all its records; an unstamped event (no counter
  // registered yet) follows none: the thread had no records then.
  uint64_t complete_at = kAll;
  if (e.kind == EventKind::kThreadEnd) {
    if (stamp != SEER_STAMP_NONE) complete_at = stamp;
    stamp = kAll;
  } else if (stamp == SEER_STAMP_NONE) {
    stamp = 0;
  }
  t.received = std::max(t.received, stamp);
  t.pending.push_back(stamp);
  sync_.push_back({e, os_tid, stamp, complete_at});
}

void AccessJoiner::AddRuntime(const Event& e, uint32_t ring, uint64_t word, uint64_t collected_ns) {
  // Synchronisation comes from the probes; a runtime built for inproc mode
  // would repeat it.
  if (e.kind == EventKind::kThreadBegin || e.kind == EventKind::kThreadEnd || e.kind == EventKind::kFork ||
      e.kind == EventKind::kJoin || IsLockEvent(e.kind))
    return;
  if (ring >= queued_.size()) queued_.resize(ring + 1);
  queued_[ring].push_back({e, ring, word, collected_ns, next_seq_++});
}

bool AccessJoiner::Ready(const SyncItem& s) {
  if (s.stamp == 0) return true;
  const int32_t ring = RingOf(s.os_tid);
  if (ring < 0) return true;  // the thread never had a ring: no records to wait for
  if (s.stamp != kAll) return rings_->Delivered(static_cast<uint32_t>(ring)) >= s.stamp;
  // The end: once every word of the ring was delivered, as far as the exit
  // probe read it or, when it could not, until the thread closed its ring.
  if (s.complete_at != kAll) return rings_->Delivered(static_cast<uint32_t>(ring)) >= s.complete_at;
  const rt::RingDesc& d = rt::RingDescs(shm_)[ring];
  return d.state.load(std::memory_order_acquire) == rt::kRingEnded &&
         rings_->Delivered(static_cast<uint32_t>(ring)) >= d.head.load(std::memory_order_acquire);
}

// A record may go once its thread has begun, every sync event of its thread
// stamped at or below it has been emitted, and no later-arriving one can be
// (one stamped above it has arrived, or the watermark passed its collection).
AccessJoiner::Place AccessJoiner::PlaceOf(const RuntimeItem& r) {
  const pid_t os = OsTidOf(r.ring);
  auto it = threads_.find(os);
  const bool settled = watermark_ >= r.collected_ns || (it != threads_.end() && it->second.received > r.word);
  if (it == threads_.end()) return settled ? Place::kGated : Place::kUnknown;
  const Thread& t = it->second;
  if (t.ended || (!t.pending.empty() && t.pending.front() <= r.word) || held_(os)) return Place::kGated;
  if (!settled) return Place::kUnknown;
  return t.tid >= 0 ? Place::kFree : Place::kGated;
}

int32_t AccessJoiner::EarliestRing(const std::vector<bool>& excluded) const {
  int32_t best = -1;
  for (uint32_t r = 0; r < queued_.size(); ++r)
    if (!queued_[r].empty() && !excluded[r] && (best < 0 || queued_[r].front().seq < queued_[best].front().seq))
      best = static_cast<int32_t>(r);
  return best;
}

Status AccessJoiner::EmitRuntime(uint32_t ring) {
  const RuntimeItem r = queued_[ring].front();
  queued_[ring].pop_front();
  auto it = threads_.find(OsTidOf(ring));
  if (it == threads_.end() || it->second.tid < 0 || it->second.ended) {
    ++stats_.orphaned;
    return Status::Ok();
  }
  Event e = r.e;
  e.tid = static_cast<uint32_t>(it->second.tid);
  return sink_(e);
}

Status AccessJoiner::EmitSync(const SyncItem& s, bool final, bool* emitted) {
  *emitted = false;
  const int32_t ring = RingOf(s.os_tid);
  if (ring >= 0 && s.stamp > 0 && static_cast<size_t>(ring) < queued_.size()) {
    const std::deque<RuntimeItem>& mine = queued_[ring];
    // The thread's records below the stamp go first, with whatever records of
    // other threads precede them in the ring merger's order and may go now. A
    // ring whose first record may not go before this event drops out: its
    // later records cannot go either (program order).
    std::vector<bool>& excluded = excluded_;
    excluded.assign(queued_.size(), false);
    bool skipped = false;
    while (!mine.empty() && mine.front().word < s.stamp) {
      const int32_t r = EarliestRing(excluded);
      if (r != ring) {
        const Place place = PlaceOf(queued_[r].front());
        if (place == Place::kUnknown && !final) return Status::Ok();  // wait for the watermark
        if (place != Place::kFree) {
          excluded[r] = true;
          skipped = true;
          continue;
        }
      } else if (skipped) {
        ++stats_.reordered;
      }
      Status st = EmitRuntime(static_cast<uint32_t>(r));
      if (!st.ok()) return st;
    }
  }
  *emitted = true;
  Thread& t = threads_[s.os_tid];
  if (!t.pending.empty()) t.pending.pop_front();
  if (s.e.kind == EventKind::kThreadBegin) t.tid = s.e.tid;
  if (s.e.kind == EventKind::kThreadEnd) t.ended = true;
  return sink_(s.e);
}

Status AccessJoiner::Pump(bool final) {
  const std::vector<bool> none(queued_.size(), false);
  for (;;) {
    bool progress = false;
    while (!sync_.empty() && (final || Ready(sync_.front()))) {
      bool emitted = false;
      Status st = EmitSync(sync_.front(), final, &emitted);
      if (!st.ok()) return st;
      if (!emitted) break;
      sync_.pop_front();
      progress = true;
    }
    // Records whose place is settled go now, in the ring merger's order.
    for (int32_t r; (r = EarliestRing(none)) >= 0 && PlaceOf(queued_[r].front()) == Place::kFree;) {
      Status st = EmitRuntime(static_cast<uint32_t>(r));
      if (!st.ok()) return st;
      progress = true;
    }
    if (!progress) break;
  }
  if (final) {
    // Records after a thread's last sync event (a thread that never ended).
    for (int32_t r; (r = EarliestRing(none)) >= 0;) {
      Status st = EmitRuntime(static_cast<uint32_t>(r));
      if (!st.ok()) return st;
    }
  }
  return Status::Ok();
}

}  // namespace seer::recorder
