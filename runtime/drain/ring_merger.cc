#include "runtime/drain/ring_merger.h"

#include <algorithm>
#include <queue>
#include <string>
#include <utility>

#include "runtime/ring_record.h"

namespace seer {
namespace {

// How long one round waits for a thread that holds a sequence number it has not
// published yet (a few instructions, unless the thread was descheduled): then
// the round gives up and the next one tries again.
constexpr int kBusySpins = 20000;

bool IsThreadObject(EventKind k) { return k == EventKind::kFork || k == EventKind::kJoin; }

}  // namespace

RingMerger::RingMerger(rt::ShmHeader* shm) : shm_(shm) {}

uint64_t RingMerger::Word(uint32_t ring, uint64_t pos) const {
  return rt::RingData(shm_, ring)[pos & (shm_->ring_words - 1)];
}

uint32_t RingMerger::TidOf(uint32_t ring) {
  if (ring >= cursors_.size()) cursors_.resize(ring + 1);
  Cursor& c = cursors_[ring];
  if (c.tid < 0) c.tid = next_tid_++;
  return static_cast<uint32_t>(c.tid);
}

Status RingMerger::Deliver(const Event& e, const Sink& sink) {
  ++emitted_;
  return sink(e);
}

Status RingMerger::EmitUntilOrdered(uint32_t ring, const Sink& sink, uint64_t* next_seq) {
  Cursor& c = cursors_[ring];
  *next_seq = rt::kNoSeq;
  while (c.pos < c.head) {
    const uint64_t w0 = Word(ring, c.pos);
    const uint8_t kind = rt::RecordKind(w0);
    if (kind >= kNumEventKinds)
      return Status::Corruption("runtime ring " + std::to_string(ring) + " word " + std::to_string(c.pos) +
                                ": unknown record kind " + std::to_string(kind));
    if (rt::IsLong(w0)) {
      if (c.pos + rt::kLongWords > c.head)
        return Status::Corruption("runtime ring " + std::to_string(ring) + ": record cut at word " +
                                  std::to_string(c.pos));
      const uint64_t seq = Word(ring, c.pos + 4);
      if (seq != rt::kNoSeq) {
        *next_seq = seq;
        return Status::Ok();
      }
      // A long plain record: a range too big for a short one.
      Event e;
      e.kind = static_cast<EventKind>(kind);
      e.mode = rt::LongMode(w0);
      e.object = Word(ring, c.pos + 1);
      e.aux = Word(ring, c.pos + 2);
      e.pc = Word(ring, c.pos + 3);
      e.tid = TidOf(ring);
      c.pos += rt::kLongWords;
      Status s = Deliver(e, sink);
      if (!s.ok()) return s;
      continue;
    }
    if (c.pos + rt::kShortWords > c.head)
      return Status::Corruption("runtime ring " + std::to_string(ring) + ": record cut at word " +
                                std::to_string(c.pos));
    Event e;
    e.kind = static_cast<EventKind>(kind);
    e.object = rt::ShortObject(w0);
    e.aux = rt::ShortSize(w0);
    e.pc = Word(ring, c.pos + 1);
    e.tid = TidOf(ring);
    c.pos += rt::kShortWords;
    Status s = Deliver(e, sink);
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

Status RingMerger::EmitOrdered(uint32_t ring, const Sink& sink) {
  Cursor& c = cursors_[ring];
  const uint64_t w0 = Word(ring, c.pos);
  Event e;
  e.kind = static_cast<EventKind>(rt::RecordKind(w0));
  e.mode = rt::LongMode(w0);
  e.object = Word(ring, c.pos + 1);
  e.aux = Word(ring, c.pos + 2);
  e.pc = Word(ring, c.pos + 3);
  e.tid = TidOf(ring);
  c.pos += rt::kLongWords;
  if (IsThreadObject(e.kind)) {
    if (e.object >= shm_->max_rings)
      return Status::Corruption("runtime ring " + std::to_string(ring) + ": thread event names ring " +
                                std::to_string(e.object));
    e.object = TidOf(static_cast<uint32_t>(e.object));
  }
  return Deliver(e, sink);
}

uint64_t RingMerger::PeekOrderedSeq(uint32_t ring) const {
  const Cursor& c = cursors_[ring];
  uint64_t pos = c.pos;
  while (pos < c.head) {
    const uint64_t w = Word(ring, pos);
    if (!rt::IsLong(w)) {
      pos += rt::kShortWords;
      continue;
    }
    if (pos + rt::kLongWords > c.head) break;  // EmitUntilOrdered reports the damage
    const uint64_t seq = Word(ring, pos + 4);
    if (seq != rt::kNoSeq) return seq;
    pos += rt::kLongWords;
  }
  return rt::kNoSeq;
}

Status RingMerger::Drain(bool final, const Sink& sink, uint64_t* emitted) {
  const uint64_t before = emitted_;
  // Every number below `limit` was taken before this load; once the rings that
  // were busy are not, each of those records is published.
  const uint64_t limit = final ? rt::kNoSeq : shm_->seq.load(std::memory_order_seq_cst);
  const uint32_t rings = std::min(shm_->next_ring.load(std::memory_order_seq_cst), shm_->max_rings);
  if (cursors_.size() < rings) cursors_.resize(rings);
  rt::RingDesc* descs = rt::RingDescs(shm_);
  for (uint32_t r = 0; r < rings; ++r) {
    if (!final) {
      int spins = 0;
      while (descs[r].busy.load(std::memory_order_seq_cst) != 0) {
        if (++spins > kBusySpins) {
          if (emitted) *emitted = 0;
          return Status::Ok();  // try again next round
        }
      }
    }
    cursors_[r].head = descs[r].head.load(std::memory_order_acquire);
    if (cursors_[r].head - cursors_[r].pos > shm_->ring_words)
      return Status::Corruption("runtime ring " + std::to_string(r) + ": head " +
                                std::to_string(cursors_[r].head) + " is beyond the ring");
  }

  // Smallest pending sequence number first; each ring contributes its next
  // ordered record once the plain records before it are delivered.
  using Entry = std::pair<uint64_t, uint32_t>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> ready;
  for (uint32_t r = 0; r < rings; ++r) {
    // Plain records before the ring's first ordered one are delivered when that
    // record is due, not earlier, to keep them close to real time.
    const uint64_t seq = PeekOrderedSeq(r);
    if (seq < limit) ready.push({seq, r});
  }

  while (!ready.empty()) {
    const uint32_t r = ready.top().second;
    ready.pop();
    uint64_t seq;
    Status s = EmitUntilOrdered(r, sink, &seq);
    if (!s.ok()) return s;
    s = EmitOrdered(r, sink);
    if (!s.ok()) return s;
    const uint64_t nseq = PeekOrderedSeq(r);
    if (nseq < limit) ready.push({nseq, r});
  }

  // What is left before each ring's next ordered record (which is at or beyond
  // `limit`) happened before this round began: deliver it now.
  for (uint32_t r = 0; r < rings; ++r) {
    uint64_t seq;
    Status s = EmitUntilOrdered(r, sink, &seq);
    if (!s.ok()) return s;
    descs[r].tail.store(cursors_[r].pos, std::memory_order_release);
  }
  if (emitted) *emitted = emitted_ - before;
  return Status::Ok();
}

std::vector<ThreadInfo> RingMerger::Threads() const {
  std::vector<ThreadInfo> out;
  rt::RingDesc* descs = rt::RingDescs(shm_);
  for (uint32_t r = 0; r < cursors_.size(); ++r) {
    if (cursors_[r].tid < 0) continue;
    ThreadInfo t;
    t.tid = static_cast<uint32_t>(cursors_[r].tid);
    t.os_tid = descs[r].os_tid != 0 ? descs[r].os_tid : -1;
    const int32_t parent = descs[r].parent;
    if (parent >= 0 && static_cast<uint32_t>(parent) < cursors_.size() && cursors_[parent].tid >= 0)
      t.parent = cursors_[parent].tid;
    t.name = r == 0 ? "main" : "thread-" + std::to_string(t.tid);
    out.push_back(t);
  }
  std::sort(out.begin(), out.end(), [](const ThreadInfo& a, const ThreadInfo& b) { return a.tid < b.tid; });
  return out;
}

std::vector<uint64_t> RingMerger::LostByKind() const {
  std::vector<uint64_t> lost(kNumEventKinds, 0);
  const uint32_t rings = std::min(shm_->next_ring.load(), shm_->max_rings);
  rt::RingDesc* descs = rt::RingDescs(shm_);
  for (uint32_t r = 0; r < rings; ++r)
    for (int k = 0; k < kNumEventKinds; ++k) lost[k] += descs[r].lost[k].load(std::memory_order_relaxed);
  return lost;
}

uint64_t RingMerger::ThreadsWithoutRing() const { return shm_->no_ring_threads.load(); }

}  // namespace seer
