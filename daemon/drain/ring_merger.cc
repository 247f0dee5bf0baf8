#include "daemon/drain/ring_merger.h"

#include <algorithm>
#include <string>
#include <utility>

#include "seer/ring_record.h"

namespace seer {

RingMerger::RingMerger(rt::ShmHeader* shm)
    : shm_(shm), next_number_(rt::kDomains + 1, 0), blocked_(rt::kDomains + 1) {}

void RingMerger::AddExternal(uint32_t ring, uint64_t word, uint64_t number, const Event& event) {
  TidOf(ring);
  Pending& p = rings_[ring];
  if (word < p.base + p.pos) ++external_late_;
  p.external.push_back({word, number, event});
  // A ring that had nothing ordered pending may have this now; one waiting on
  // a ring record reaches the external event once that record is out.
  if (p.wait == Wait::kNone) (void)Examine(ring);
}

uint32_t RingMerger::TidOf(uint32_t ring) {
  if (ring >= rings_.size()) rings_.resize(ring + 1);
  Pending& p = rings_[ring];
  if (p.tid < 0) p.tid = next_tid_++;
  return static_cast<uint32_t>(p.tid);
}

Status RingMerger::Damaged(uint32_t ring, size_t pos, const std::string& what) const {
  return Status::Corruption("runtime ring " + std::to_string(ring) + " word " + std::to_string(pos) + ": " + what);
}

Status RingMerger::Examine(uint32_t ring) {
  Pending& p = rings_[ring];
  const uint64_t* w = p.words.data();
  const size_t end = p.words.size();
  size_t pos = std::max(p.pos, p.scan);
  p.wait = Wait::kNone;
  p.at_external = false;
  // The next external event's place, when it lies within what was copied.
  size_t limit = end;
  bool external = false;
  if (!p.external.empty()) {
    const uint64_t at = p.external.front().word;
    size_t rel = at <= p.base + p.pos ? p.pos : static_cast<size_t>(at - p.base);
    if (final_) rel = std::min(rel, end);
    if (rel <= end) {
      limit = rel;
      external = true;
      pos = std::min(pos, rel);  // scanned as plain before it arrived: rescan up to it
    }
  }
  while (pos < limit) {
    // Most records are one-word compact accesses: step over them without
    // working out each record's length.
    while (pos < limit && rt::IsCompact(w[pos])) ++pos;
    if (pos >= limit) break;
    const uint64_t w0 = w[pos];
    const size_t n = static_cast<size_t>(rt::RecordWords(w0));
    if (pos + n > end) return Damaged(ring, pos, "record cut short");
    if (rt::IsLong(w0) && rt::LongOrder(w + pos) != rt::kNoSeq) break;
    pos += n;
  }
  p.scan = pos;
  if (external && pos >= limit) {
    // The external event is next in this thread (a stamp between records).
    p.scan = pos = limit;
    p.at_external = true;
    const uint64_t number = p.external.front().number;
    if (number < next_number_[kExternalDomain])
      return Damaged(ring, pos, "external event " + std::to_string(number) + " delivered twice");
    if (number == next_number_[kExternalDomain]) {
      ready_.push_back(ring);
      p.wait = Wait::kReady;
    } else {
      blocked_[kExternalDomain].push_back(ring);
      p.wait = Wait::kBlocked;
    }
    return Status::Ok();
  }
  if (pos == end) return Status::Ok();

  const uint64_t order = rt::LongOrder(w + pos);
  const uint32_t domain = rt::OrderDomain(order);
  if (domain >= rt::kDomains) return Damaged(ring, pos, "order domain " + std::to_string(domain) + " out of range");
  if (next_number_[rt::kGlobalDomain] < rt::LongAfter(w + pos)) {
    blocked_[rt::kGlobalDomain].push_back(ring);
    p.wait = Wait::kBlocked;
    return Status::Ok();
  }
  const uint64_t number = rt::OrderNumber(order);
  if (number < next_number_[domain])
    return Damaged(ring, pos, "number " + std::to_string(number) + " of domain " + std::to_string(domain) +
                                  " delivered twice");
  if (number == next_number_[domain]) {
    ready_.push_back(ring);
    p.wait = Wait::kReady;
  } else {
    blocked_[domain].push_back(ring);
    p.wait = Wait::kBlocked;
  }
  return Status::Ok();
}

namespace {

// The fields of the long record at `w` other than its kind and thread.
void ReadLongFields(const uint64_t* w, Event* e) {
  e->mode = rt::LongMode(w[0]);
  e->object = rt::LongObject(w);
  e->aux = rt::LongAux(w);
  e->pc = rt::LongPc(w);
}

}  // namespace

Status RingMerger::EmitPlain(uint32_t ring, const Sink& sink) {
  Pending& p = rings_[ring];
  const uint32_t tid = TidOf(ring);
  const uint64_t* w = p.words.data();
  Event local;
  while (p.pos < p.scan) {
    const uint64_t w0 = w[p.pos];
    origin_ = {ring, p.base + p.pos};
    // In a run the event is built where it goes: building it aside and copying
    // it (16-byte loads of fields just stored in 8, 4 and 1 bytes) stalls on
    // store forwarding, which perf put at over a tenth of the merge's time.
    Event& e = run_sink_ != nullptr ? run_.emplace_back() : local;
    e.tid = tid;
    if (rt::IsCompact(w0)) {
      e.kind = static_cast<EventKind>(rt::CompactKind(w0));
      e.mode = 0;
      e.object = rt::ShortObject(w0);
      e.aux = rt::CompactSize(w0);
      if (e.aux == 0) return DamagedInRun(ring, p.pos, "compact record of an impossible size");
      e.pc = rt::CompactPc(w0, p.last_pc);
      p.last_pc = e.pc;
      p.pos += rt::kCompactWords;
    } else {
      const uint8_t kind = rt::RecordKind(w0);
      if (kind >= kNumEventKinds) return DamagedInRun(ring, p.pos, "unknown record kind " + std::to_string(kind));
      e.kind = static_cast<EventKind>(kind);
      if (rt::IsLong(w0)) {
        // A long plain record: a range too big for a short one.
        ReadLongFields(w + p.pos, &e);
        p.pos += static_cast<size_t>(rt::RecordWords(w0));
      } else {
        e.mode = 0;
        e.object = rt::ShortObject(w0);
        e.aux = rt::ShortSize(w0);
        e.pc = w[p.pos + 1];
        rt::UpdateLastPc(kind, e.object, e.pc, &p.last_pc);
        p.pos += rt::kShortWords;
      }
    }
    ++delivered_;
    if (run_sink_ == nullptr) {
      Status s = sink(e);
      if (!s.ok()) return s;
    } else if (run_.size() >= kRunEvents) {
      Status s = FlushRun();
      if (!s.ok()) return s;
    }
  }
  return Status::Ok();
}

Status RingMerger::DamagedInRun(uint32_t ring, size_t pos, const std::string& what) {
  if (run_sink_ != nullptr) run_.pop_back();  // the half-built event
  return Damaged(ring, pos, what);
}

Status RingMerger::EmitOrdered(uint32_t ring, const Sink& sink) {
  if (rings_[ring].at_external) {
    Pending& p = rings_[ring];
    Event e = p.external.front().event;
    p.external.pop_front();
    e.tid = TidOf(ring);
    origin_ = {ring, p.base + p.pos};
    p.at_external = false;
    p.wait = Wait::kNone;
    ++delivered_;
    Status s = Deliver(sink, e);
    if (!s.ok()) return s;
    ++next_number_[kExternalDomain];
    if (!blocked_[kExternalDomain].empty()) {
      std::vector<uint32_t> waiting;
      waiting.swap(blocked_[kExternalDomain]);
      for (uint32_t r : waiting) {
        s = Examine(r);
        if (!s.ok()) return s;
      }
    }
    return Examine(ring);
  }
  // A fork or join names another ring, and TidOf may grow rings_ for it: resolve
  // that before taking a reference into rings_.
  {
    const uint64_t* w = rings_[ring].words.data() + rings_[ring].pos;
    const uint8_t kind = rt::RecordKind(w[0]);
    if ((kind == static_cast<uint8_t>(EventKind::kFork) || kind == static_cast<uint8_t>(EventKind::kJoin)) &&
        rt::LongObject(w) < shm_->max_rings)
      TidOf(static_cast<uint32_t>(rt::LongObject(w)));
  }
  Pending& p = rings_[ring];
  const uint64_t* w = p.words.data() + p.pos;
  const uint8_t kind = rt::RecordKind(w[0]);
  if (kind >= kNumEventKinds) return Damaged(ring, p.pos, "unknown record kind " + std::to_string(kind));
  Event e;
  e.kind = static_cast<EventKind>(kind);
  ReadLongFields(w, &e);
  e.tid = TidOf(ring);
  if (e.kind == EventKind::kFork || e.kind == EventKind::kJoin) {
    if (e.object >= shm_->max_rings)
      return Damaged(ring, p.pos, "thread event names ring " + std::to_string(e.object));
    e.object = TidOf(static_cast<uint32_t>(e.object));  // rings_ already holds it: p stays valid
  }
  const uint32_t domain = rt::OrderDomain(rt::LongOrder(w));
  origin_ = {ring, p.base + p.pos};
  p.pos += static_cast<size_t>(rt::RecordWords(w[0]));
  p.scan = p.pos;
  p.wait = Wait::kNone;
  ++delivered_;
  Status s = Deliver(sink, e);
  if (!s.ok()) return s;
  // The domain moves on: whoever waited for it may be due now.
  ++next_number_[domain];
  if (!blocked_[domain].empty()) {
    std::vector<uint32_t> waiting;
    waiting.swap(blocked_[domain]);
    for (uint32_t r : waiting) {
      s = Examine(r);
      if (!s.ok()) return s;
    }
  }
  return Examine(ring);
}

bool RingMerger::SkipGap() {
  uint32_t best_domain = 0;
  uint64_t best_to = 0, best_gap = ~0ull;
  for (uint32_t d = 0; d <= kExternalDomain; ++d) {
    for (uint32_t r : blocked_[d]) {
      const Pending& p = rings_[r];
      if (p.at_external) {
        const uint64_t to = p.external.front().number;
        if (to - next_number_[d] < best_gap) {
          best_gap = to - next_number_[d];
          best_domain = d;
          best_to = to;
        }
        continue;
      }
      const uint64_t* w = p.words.data() + p.scan;
      uint64_t to = rt::OrderNumber(rt::LongOrder(w));
      const uint64_t after = rt::LongAfter(w);
      if (d == rt::kGlobalDomain && next_number_[d] < after) to = after;
      if (to - next_number_[d] < best_gap) {
        best_gap = to - next_number_[d];
        best_domain = d;
        best_to = to;
      }
    }
  }
  if (best_gap == ~0ull) return false;
  order_gaps_ += best_gap;
  next_number_[best_domain] = best_to;
  std::vector<uint32_t> waiting;
  waiting.swap(blocked_[best_domain]);
  for (uint32_t r : waiting) {
    if (!Examine(r).ok()) rings_[r].wait = Wait::kNone;  // reported by the next pass over the ring
  }
  return true;
}

Status RingMerger::Add(RingBatch* batch, const Sink& sink, uint64_t* emitted) {
  const uint64_t before = delivered_;
  if (batch->final) final_ = true;
  if (rings_.size() < batch->words.size()) rings_.resize(batch->words.size());
  for (uint32_t r = 0; r < batch->words.size(); ++r) {
    Pending& p = rings_[r];
    RingWords& in = batch->words[r];
    if (in.empty()) continue;
    if (p.pos == p.words.size()) {
      p.base += p.words.size();
      p.words.swap(in);
      p.pos = 0;
      p.scan = 0;
    } else {
      p.base += p.pos;
      p.words.erase(p.words.begin(), p.words.begin() + static_cast<std::ptrdiff_t>(p.pos));
      p.scan -= p.pos;
      p.pos = 0;
      p.words.insert(p.words.end(), in.begin(), in.end());
    }
    // A ring that had no ordered record pending may have one now.
    if (p.wait == Wait::kNone) {
      Status s = Examine(r);
      if (!s.ok()) return s;
    }
  }

  // The last batch: external events past a ring's last word go at its end.
  if (final_)
    for (uint32_t r = 0; r < rings_.size(); ++r)
      if (rings_[r].wait == Wait::kNone && !rings_[r].external.empty()) {
        Status s = Examine(r);
        if (!s.ok()) return s;
      }

  // Topological merge: a ring is due when its next ordered record's number is
  // the next of its domain. Rings take turns (first come, first served) one
  // ordered record at a time, each preceded by the plain records before it, so
  // threads interleave at the grain of their synchronisation.
  for (;;) {
    while (ready_pos_ < ready_.size()) {
      const uint32_t r = ready_[ready_pos_++];
      Status s = EmitPlain(r, sink);
      if (!s.ok()) return s;
      s = EmitOrdered(r, sink);
      if (!s.ok()) return s;
    }
    ready_.clear();
    ready_pos_ = 0;
    // Nothing more will come: a number still missing belonged to a thread
    // killed between taking it and publishing its record. Skip it.
    if (!batch->final || !SkipGap()) break;
  }
  // What is left before each ring's next ordered record (or its end) happened
  // before this batch was collected: deliver it now.
  for (uint32_t r = 0; r < rings_.size(); ++r) {
    Pending& p = rings_[r];
    if (p.wait == Wait::kNone && p.scan < p.words.size()) {
      Status s = Examine(r);  // left unexamined by a failed skip: report the damage
      if (!s.ok()) return s;
    }
    Status s = EmitPlain(r, sink);
    if (!s.ok()) return s;
    // All delivered: give the copy back now, not at the ring's next batch. A
    // thread that records rarely would hold its block for minutes, and with
    // it the spool arena's oldest end (spool_arena.h, SetExtent).
    if (p.pos == p.words.size() && p.words.capacity() != 0) {
      p.base += p.words.size();
      RingWords().swap(p.words);
      p.pos = p.scan = 0;
    }
  }
  if (emitted) *emitted = delivered_ - before;
  return Status::Ok();
}

Status RingMerger::FlushRun() {
  Status s = run_.empty() ? Status::Ok() : (*run_sink_)(run_.data(), run_.size());
  run_.clear();
  return s;
}

Status RingMerger::AddRuns(RingBatch* batch, const RunSink& sink, uint64_t* emitted) {
  run_sink_ = &sink;
  run_.reserve(kRunEvents);
  Status s = Add(batch, [](const Event&) { return Status::Ok(); }, emitted);  // Deliver bypasses it
  if (s.ok()) s = FlushRun();
  run_.clear();
  run_sink_ = nullptr;
  return s;
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
