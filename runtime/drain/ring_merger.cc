#include "runtime/drain/ring_merger.h"

#include <algorithm>
#include <queue>
#include <string>
#include <utility>

#include "runtime/ring_record.h"

namespace seer {

RingMerger::RingMerger(rt::ShmHeader* shm) : shm_(shm) {}

uint32_t RingMerger::TidOf(uint32_t ring) {
  if (ring >= rings_.size()) rings_.resize(ring + 1);
  Pending& p = rings_[ring];
  if (p.tid < 0) p.tid = next_tid_++;
  return static_cast<uint32_t>(p.tid);
}

Status RingMerger::Damaged(uint32_t ring, const std::string& what) const {
  return Status::Corruption("runtime ring " + std::to_string(ring) + " word " +
                            std::to_string(rings_[ring].pos) + ": " + what);
}

uint64_t RingMerger::PeekOrderedSeq(uint32_t ring) const {
  const Pending& p = rings_[ring];
  size_t pos = p.pos;
  while (pos < p.words.size()) {
    const uint64_t w = p.words[pos];
    if (!rt::IsLong(w)) {
      pos += rt::kShortWords;
      continue;
    }
    if (pos + rt::kLongWords > p.words.size()) break;  // EmitUntilOrdered reports it
    const uint64_t seq = p.words[pos + 4];
    if (seq != rt::kNoSeq) return seq;
    pos += rt::kLongWords;
  }
  return rt::kNoSeq;
}

Status RingMerger::EmitUntilOrdered(uint32_t ring, const Sink& sink) {
  Pending& p = rings_[ring];
  const uint32_t tid = TidOf(ring);
  const uint64_t* w = p.words.data();
  const size_t end = p.words.size();
  Event e;
  e.tid = tid;
  while (p.pos < end) {
    const uint64_t w0 = w[p.pos];
    const uint8_t kind = rt::RecordKind(w0);
    if (kind >= kNumEventKinds) return Damaged(ring, "unknown record kind " + std::to_string(kind));
    e.kind = static_cast<EventKind>(kind);
    if (rt::IsLong(w0)) {
      if (p.pos + rt::kLongWords > end) return Damaged(ring, "record cut short");
      if (w[p.pos + 4] != rt::kNoSeq) return Status::Ok();
      // A long plain record: a range too big for a short one.
      e.mode = rt::LongMode(w0);
      e.object = w[p.pos + 1];
      e.aux = w[p.pos + 2];
      e.pc = w[p.pos + 3];
      p.pos += rt::kLongWords;
    } else {
      if (p.pos + rt::kShortWords > end) return Damaged(ring, "record cut short");
      e.mode = 0;
      e.object = rt::ShortObject(w0);
      e.aux = rt::ShortSize(w0);
      e.pc = w[p.pos + 1];
      p.pos += rt::kShortWords;
    }
    ++delivered_;
    Status s = sink(e);
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

Status RingMerger::EmitOrdered(uint32_t ring, const Sink& sink) {
  Pending& p = rings_[ring];
  const uint64_t* w = p.words.data() + p.pos;
  Event e;
  e.kind = static_cast<EventKind>(rt::RecordKind(w[0]));
  e.mode = rt::LongMode(w[0]);
  e.object = w[1];
  e.aux = w[2];
  e.pc = w[3];
  e.tid = TidOf(ring);
  if (e.kind == EventKind::kFork || e.kind == EventKind::kJoin) {
    if (e.object >= shm_->max_rings) return Damaged(ring, "thread event names ring " + std::to_string(e.object));
    e.object = TidOf(static_cast<uint32_t>(e.object));
  }
  p.pos += rt::kLongWords;
  ++delivered_;
  return sink(e);
}

Status RingMerger::Add(RingBatch* batch, const Sink& sink, uint64_t* emitted) {
  const uint64_t before = delivered_;
  if (rings_.size() < batch->words.size()) rings_.resize(batch->words.size());
  for (uint32_t r = 0; r < batch->words.size(); ++r) {
    Pending& p = rings_[r];
    std::vector<uint64_t>& in = batch->words[r];
    if (in.empty()) continue;
    if (p.pos == p.words.size()) {
      p.words.swap(in);
      p.pos = 0;
    } else {
      p.words.erase(p.words.begin(), p.words.begin() + static_cast<std::ptrdiff_t>(p.pos));
      p.pos = 0;
      p.words.insert(p.words.end(), in.begin(), in.end());
    }
  }
  const uint64_t limit = batch->limit;
  const uint32_t rings = static_cast<uint32_t>(rings_.size());

  // Smallest pending sequence number first. Plain records before a ring's next
  // ordered record are delivered when that record is due, not earlier, to keep
  // them close to real time.
  using Entry = std::pair<uint64_t, uint32_t>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> ready;
  for (uint32_t r = 0; r < rings; ++r) {
    const uint64_t seq = PeekOrderedSeq(r);
    if (seq < limit) ready.push({seq, r});
  }
  while (!ready.empty()) {
    const uint32_t r = ready.top().second;
    ready.pop();
    Status s = EmitUntilOrdered(r, sink);
    if (!s.ok()) return s;
    s = EmitOrdered(r, sink);
    if (!s.ok()) return s;
    const uint64_t seq = PeekOrderedSeq(r);
    if (seq < limit) ready.push({seq, r});
  }
  // What is left before each ring's next ordered record (at or beyond `limit`)
  // happened before this batch was collected: deliver it now.
  for (uint32_t r = 0; r < rings; ++r) {
    Status s = EmitUntilOrdered(r, sink);
    if (!s.ok()) return s;
  }
  if (emitted) *emitted = delivered_ - before;
  return Status::Ok();
}

std::vector<ThreadInfo> RingMerger::Threads() const {
  std::vector<ThreadInfo> out;
  rt::RingDesc* descs = rt::RingDescs(shm_);
  for (uint32_t r = 0; r < rings_.size(); ++r) {
    if (rings_[r].tid < 0) continue;
    ThreadInfo t;
    t.tid = static_cast<uint32_t>(rings_[r].tid);
    t.os_tid = descs[r].os_tid != 0 ? descs[r].os_tid : -1;
    const int32_t parent = descs[r].parent;
    if (parent >= 0 && static_cast<uint32_t>(parent) < rings_.size() && rings_[parent].tid >= 0)
      t.parent = rings_[parent].tid;
    t.name = "thread-" + std::to_string(t.tid);
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
