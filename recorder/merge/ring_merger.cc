#include "recorder/merge/ring_merger.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "seer/ring_record.h"

namespace seer::recorder {

RingMerger::RingMerger(rt::ShmHeader* shm) : shm_(shm), domains_(rt::kDomains + 1), blocked_(rt::kDomains + 1) {}

void RingMerger::AddExternal(uint32_t ring, uint64_t word, uint64_t number, const Event& event) {
  // A returned ring's next thread gets its tid when it appears: a join of its
  // last one may still be to come.
  if (ring >= rings_.size() || !rings_[ring].returned) TidOf(ring);
  Pending& p = rings_[ring];
  if (word < p.base + p.pos) ++external_late_;
  p.external.push_back({word, number, event});
  // A ring that had nothing ordered pending may have this now; one waiting on
  // a ring record reaches the external event once that record is out.
  if (p.wait == Wait::kNone) (void)Examine(ring);
}

uint32_t RingMerger::NewTidOf(uint32_t ring) {
  if (ring >= rings_.size()) rings_.resize(ring + 1);
  Pending& p = rings_[ring];
  if (p.returned) {
    // The ring's next thread: everything its last one wrote was delivered before the give-back.
    p.returned = false;
    p.tid = -1;
    p.parent = -1;
  }
  if (p.tid < 0) p.tid = next_tid_++;
  return static_cast<uint32_t>(p.tid);
}

ThreadInfo RingMerger::InfoOf(uint32_t ring) const {
  const rt::RingDesc& d = rt::RingDescs(shm_)[ring];
  const Pending& p = rings_[ring];
  ThreadInfo t;
  t.tid = static_cast<uint32_t>(p.tid);
  t.os_tid = d.os_tid != 0 ? d.os_tid : -1;
  if (p.parent >= 0) {
    t.parent = p.parent;
  } else {
    // No fork delivered (the eBPF modes write none): the creator's ring, as it is now.
    const int32_t parent = d.parent;
    if (parent >= 0 && static_cast<uint32_t>(parent) < rings_.size() && rings_[parent].tid >= 0)
      t.parent = rings_[parent].tid;
  }
  t.name = "thread-" + std::to_string(t.tid);
  return t;
}

void RingMerger::ReturnEndedRings() {
  rt::RingDesc* descs = rt::RingDescs(shm_);
  size_t kept = 0;
  for (const uint32_t r : ended_) {
    Pending& p = rings_[r];
    rt::RingDesc& d = descs[r];
    // kReleaseEnded is set after the thread's last publication: read first, it
    // makes `head` final. The thread's end is delivered, but its join (or the
    // creator's last write) may be to come: looked at again after later batches.
    const bool done = (d.released.load(std::memory_order_acquire) & rt::kReleaseAll) == rt::kReleaseAll &&
                      d.state.load(std::memory_order_acquire) == rt::kRingEnded &&
                      Delivered(r) == d.head.load(std::memory_order_acquire) && p.external.empty() &&
                      p.wait == Wait::kNone;
    if (!done) {
      ended_[kept++] = r;
      continue;
    }
    retired_.push_back(InfoOf(r));
    p.returned = true;
    p.last_pc = 0;  // the next thread's pc rule starts afresh (ThreadState::last_pc)
    p.segment_start = false;
    p.last.reset();
    p.repeat_misses = 0;
    p.repeat_skip = 0;
    p.base += p.words.size();
    RingWords().swap(p.words);
    p.pos = 0;
    p.scan = 0;
    d.state.store(rt::kRingReturned, std::memory_order_release);
    // Counted as returned before it stops counting as coming: a waiting thread
    // always sees it as one or the other (WaitForReturnedRing).
    shm_->returned_rings.fetch_add(1, std::memory_order_release);
    shm_->coming_rings.fetch_sub(1, std::memory_order_release);
    ++rings_returned_;
  }
  ended_.resize(kept);
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
    // working out each record's length, four at a time (bits 63 and 62 of
    // each are 0 and 1: so are those of the four's AND, and bit 63 of their OR).
    while (pos + 4 <= limit) {
      const uint64_t a = w[pos], b = w[pos + 1], c = w[pos + 2], d = w[pos + 3];
      if (((a & b & c & d) >> 62 & 1) == 0 || ((a | b | c | d) >> 63) != 0) break;
      pos += 4;
    }
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
    if (number < domains_[kExternalDomain].next)
      return Damaged(ring, pos, "external event " + std::to_string(number) + " delivered twice");
    if (number == domains_[kExternalDomain].next) {
      ready_.push_back(ring);
      p.wait = Wait::kReady;
    } else {
      Block(kExternalDomain, ring);
      p.wait = Wait::kBlocked;
    }
    return Status::Ok();
  }
  if (pos == end) return Status::Ok();

  const uint64_t order = rt::LongOrder(w + pos);
  const uint32_t domain = rt::OrderDomain(order);
  if (domain >= rt::kDomains) return Damaged(ring, pos, "order domain " + std::to_string(domain) + " out of range");
  if (domains_[rt::kGlobalDomain].next < rt::LongAfter(w + pos)) {
    Block(rt::kGlobalDomain, ring);
    p.wait = Wait::kBlocked;
    return Status::Ok();
  }
  const uint64_t number = rt::OrderNumber(order);
  if (number < domains_[domain].next)
    return Damaged(ring, pos,
                   "number " + std::to_string(number) + " of domain " + std::to_string(domain) + " delivered twice");
  if (number == domains_[domain].next) {
    ready_.push_back(ring);
    p.wait = Wait::kReady;
  } else {
    Block(domain, ring);
    p.wait = Wait::kBlocked;
  }
  return Status::Ok();
}

namespace {

// True when `w0` heads a segment mark of `kind` (ring_record.h).
bool IsMark(uint64_t w0, uint8_t kind) { return !rt::IsLong(w0) && !rt::IsCompact(w0) && rt::RecordKind(w0) == kind; }

// Why DecodePlain refused the record headed by `w0`.
std::string DamageOf(uint64_t w0) {
  if (rt::IsCompact(w0)) return "compact record of an impossible size";
  return "unknown record kind " + std::to_string(rt::RecordKind(w0));
}

// The fields of the long record at `w` other than its kind and thread.
void ReadLongFields(const uint64_t* w, Event* e) {
  e->mode = rt::LongMode(w[0]);
  e->object = rt::LongObject(w);
  e->aux = rt::LongAux(w);
  e->pc = rt::LongPc(w);
}

// Decodes the plain record at `w` (all its words there) into *e, all but its
// thread, following the pc rule from *last_pc. Its words; 0 for a record no
// event comes from (damage, or a segment mark).
inline size_t DecodePlain(const uint64_t* w, uint64_t* last_pc, Event* e) {
  const uint64_t w0 = w[0];
  if (rt::IsCompact(w0)) {
    e->kind = static_cast<EventKind>(rt::CompactKind(w0));
    e->mode = 0;
    e->object = rt::ShortObject(w0);
    e->aux = rt::CompactSize(w0);
    if (e->aux == 0) [[unlikely]]
      return 0;
    e->pc = rt::CompactPc(w0, *last_pc);
    *last_pc = e->pc;
    return rt::kCompactWords;
  }
  const uint8_t kind = rt::RecordKind(w0);
  if (kind >= kNumEventKinds) [[unlikely]]
    return 0;
  e->kind = static_cast<EventKind>(kind);
  if (rt::IsLong(w0)) {
    // A long plain record: a range too big for a short one.
    ReadLongFields(w, e);
    return static_cast<size_t>(rt::RecordWords(w0));
  }
  e->mode = 0;
  e->object = rt::ShortObject(w0);
  e->aux = rt::ShortSize(w0);
  e->pc = w[1];
  rt::UpdateLastPc(kind, e->object, e->pc, last_pc);
  return rt::kShortWords;
}

}  // namespace

Status RingMerger::MarkReference(uint32_t ring, uint32_t tid, size_t begin, size_t at, bool whole, uint64_t start_pc) {
  Pending& p = rings_[ring];
  const uint64_t* w = p.words.data();
  // Cut short (the thread killed before its ordered record): nothing can repeat it.
  if (p.wait == Wait::kNone || p.scan != at + rt::kShortWords) {
    p.marked.reset();
    return Status::Ok();
  }
  if (!whole || rt::ShortObject(w[at]) != at - begin)
    return Damaged(ring, at,
                   "reference mark of " + std::to_string(rt::ShortObject(w[at])) + " words after " +
                       (whole ? std::to_string(at - begin) + " words" : "part of a segment"));
  if (p.marked == nullptr) p.marked = std::make_unique<LastSegment>();
  p.marked->words.assign(w + begin, w + at);
  p.marked->start_pc = start_pc;
  p.marked->tid = tid;
  p.marked->run.reset();
  return Status::Ok();
}

Status RingMerger::EmitMarkedRepeat(uint32_t ring, uint32_t tid, bool whole, const Sink& sink) {
  Pending& p = rings_[ring];
  const size_t at = p.pos;
  const uint64_t len = rt::ShortObject(p.words[at]);
  LastSegment* ref = p.marked.get();
  if (!whole || ref == nullptr || ref->tid != tid || ref->start_pc != p.last_pc || ref->words.size() != len)
    return Damaged(ring, at, "repeat mark of " + std::to_string(len) + " words with no such reference segment");
  if (ref->run == nullptr) {
    // Its first repeat: decoded once, handed on as the same object from now on.
    auto run = std::make_shared<store::RepeatedRun>();
    uint64_t last_pc = ref->start_pc;
    for (size_t i = 0; i < ref->words.size();) {
      Event e;
      e.tid = tid;
      const size_t n = DecodePlain(ref->words.data() + i, &last_pc, &e);
      if (n == 0 || i + n > ref->words.size())
        return Damaged(ring, at, "reference segment: " + DamageOf(ref->words[i]));
      run->events.push_back(e);
      ++run->by_kind[static_cast<int>(e.kind)];
      i += n;
    }
    ref->run = std::move(run);
    ref->end_pc = last_pc;
  }
  return DeliverRepeat(ring, *ref, &sink);
}

Status RingMerger::DeliverRepeat(uint32_t ring, const LastSegment& seg, const Sink* sink) {
  Pending& p = rings_[ring];
  const size_t at = p.pos;
  p.pos = p.scan;
  p.last_pc = seg.end_pc;
  p.segment_start = false;
  const std::vector<Event>& events = seg.run->events;
  if (run_sink_ != nullptr) {
    Status s = FlushRun();
    if (!s.ok()) return s;
    delivered_ += events.size();
    ++repeats_delivered_;
    return (*run_sink_)(events.data(), events.size(), seg.run);
  }
  origin_ = {ring, p.base + at};
  for (const Event& e : events) {
    ++delivered_;
    Status s = (*sink)(e);
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

Status RingMerger::EmitRepeat(uint32_t ring, uint32_t tid, bool* done, LastSegment** keep) {
  Pending& p = rings_[ring];
  const uint64_t* w = p.words.data() + p.pos;
  const size_t n = p.scan - p.pos;
  if (p.last == nullptr) p.last = std::make_unique<LastSegment>();
  LastSegment& last = *p.last;
  // The same words decode to the same events given the same thread and the
  // same last pc (the one thing a record's decoding reads from before it).
  if (last.tid != tid || last.start_pc != p.last_pc || last.words.size() != n ||
      std::memcmp(last.words.data(), w, n * sizeof(uint64_t)) != 0) {
    last.words.assign(w, w + n);
    last.start_pc = p.last_pc;
    last.tid = tid;
    last.run.reset();
    // Backing off, two segments in a row are compared after each pass over
    // kRepeatStride - 2: the second against the first.
    if (++p.repeat_misses >= kRepeatMisses && (p.repeat_misses - kRepeatMisses) % 2 == 1)
      p.repeat_skip = kRepeatStride - 2;
    return Status::Ok();
  }
  p.repeat_misses = 0;
  if (last.run == nullptr) {
    // Its first repeat: decoded as any segment, all of it in the run buffer
    // (which then stays short of full: no flush in between), and kept.
    if (run_size_ + n >= kRunEvents) {
      Status s = FlushRun();
      if (!s.ok()) return s;
    }
    *keep = &last;
    return Status::Ok();
  }
  *done = true;
  return DeliverRepeat(ring, last, nullptr);  // only with a run sink (EmitPlain)
}

Status RingMerger::EmitPlain(uint32_t ring, const Sink& sink) {
  Pending& p = rings_[ring];
  if (p.returned && p.pos >= p.scan) return Status::Ok();  // its next thread has not appeared
  const uint32_t tid = TidOf(ring);
  // A whole segment (its ordered record found, nothing of it delivered yet).
  LastSegment* keep = nullptr;
  if (repeats_ && run_sink_ != nullptr && p.segment_start && p.wait != Wait::kNone &&
      p.scan - p.pos >= kMinRepeatWords && p.scan - p.pos <= kMaxRepeatWords) {
    if (p.repeat_skip > 0) {
      --p.repeat_skip;
    } else {
      bool done = false;
      Status s = EmitRepeat(ring, tid, &done, &keep);
      if (!s.ok() || done) return s;
    }
  }
  const size_t from = run_size_;  // where a kept segment's events begin
  const uint64_t* w = p.words.data();
  // The position and the pc rule's last pc live in registers, and are stored
  // back before anything that may look at them (the sink, a damage report).
  size_t pos = p.pos;
  const size_t begin = pos;
  uint64_t last_pc = p.last_pc;
  const uint64_t entry_pc = last_pc;
  const size_t scan = p.scan;
  // Repeat marks: the segment is whole here (an ordered record just before it
  // and one after it), and may be the reference or its repeat.
  const bool whole = p.segment_start && p.wait != Wait::kNone;
  if (scan - pos == static_cast<size_t>(rt::kShortWords) && IsMark(w[pos], rt::kSegmentRepeatKind))
    return EmitMarkedRepeat(ring, tid, whole, sink);
  Event local;
  Status s;
  while (pos < scan) {
    // In a run the event is built where it goes: building it aside and copying
    // it (16-byte loads of fields just stored in 8, 4 and 1 bytes) stalls on
    // store forwarding, which perf put at over a tenth of the merge's time.
    Event& e = run_sink_ != nullptr ? run_[run_size_] : local;
    e.tid = tid;
    const size_t at = pos;
    const size_t n = DecodePlain(w + pos, &last_pc, &e);
    if (n == 0) [[unlikely]] {
      if (IsMark(w[pos], rt::kSegmentRefKind)) {
        s = MarkReference(ring, tid, begin, pos, whole, entry_pc);
        if (!s.ok()) break;
        pos += rt::kShortWords;
        continue;
      }
      s = Damaged(ring, pos, DamageOf(w[pos]));
      break;
    }
    pos += n;
    ++delivered_;
    if (run_sink_ == nullptr) {
      origin_ = {ring, p.base + at};
      p.pos = pos;
      p.last_pc = last_pc;
      s = sink(e);
      if (!s.ok()) break;
    } else if (++run_size_ >= kRunEvents) {
      p.pos = pos;
      p.last_pc = last_pc;
      s = FlushRun();
      if (!s.ok()) break;
    }
  }
  if (pos != begin) p.segment_start = false;
  p.pos = pos;
  p.last_pc = last_pc;
  if (keep != nullptr && s.ok()) {
    auto run = std::make_shared<store::RepeatedRun>();
    run->events.assign(run_.get() + from, run_.get() + run_size_);
    for (const Event& e : run->events) ++run->by_kind[static_cast<int>(e.kind)];
    keep->run = std::move(run);
    keep->end_pc = last_pc;
  }
  return s;
}

Status RingMerger::EmitOrdered(uint32_t ring, const Sink& sink) {
  if (rings_[ring].at_external) {
    Pending& p = rings_[ring];
    Event local;
    Event& e = Slot(&local);
    e = p.external.front().event;
    p.external.pop_front();
    e.tid = TidOf(ring);
    origin_ = {ring, p.base + p.pos};
    p.at_external = false;
    p.wait = Wait::kNone;
    p.segment_start = true;
    ++delivered_;
    Status s = Deliver(sink, e);
    if (!s.ok()) return s;
    ++domains_[kExternalDomain].next;
    s = Unblock(kExternalDomain);
    if (!s.ok()) return s;
    return Examine(ring);
  }
  // A fork or join names another ring, and TidOf may grow rings_ for it: resolve
  // that before taking a reference into rings_. A fork names the ring's next
  // thread (a returned ring's new tid); a join the thread that ended, even if
  // its ring went back meanwhile (its tid is kept until the next thread appears).
  {
    const uint64_t* w = rings_[ring].words.data() + rings_[ring].pos;
    const uint8_t kind = rt::RecordKind(w[0]);
    const uint64_t other = rt::LongObject(w);
    if (kind == static_cast<uint8_t>(EventKind::kFork) && other < shm_->max_rings)
      TidOf(static_cast<uint32_t>(other));
    else if (kind == static_cast<uint8_t>(EventKind::kJoin) && other < shm_->max_rings &&
             (other >= rings_.size() || rings_[other].tid < 0))
      TidOf(static_cast<uint32_t>(other));
  }
  Pending& p = rings_[ring];
  const uint64_t* w = p.words.data() + p.pos;
  const uint8_t kind = rt::RecordKind(w[0]);
  if (kind >= kNumEventKinds) return Damaged(ring, p.pos, "unknown record kind " + std::to_string(kind));
  Event local;
  Event& e = Slot(&local);
  e.kind = static_cast<EventKind>(kind);
  ReadLongFields(w, &e);
  e.tid = TidOf(ring);
  if (e.kind == EventKind::kFork || e.kind == EventKind::kJoin) {
    if (e.object >= shm_->max_rings) return Damaged(ring, p.pos, "thread event names ring " + std::to_string(e.object));
    Pending& other = rings_[e.object];  // resolved above: p stays valid
    if (e.kind == EventKind::kFork) other.parent = e.tid;
    e.object = static_cast<uint64_t>(other.tid);
  } else if (e.kind == EventKind::kWatchHit) {
    // The thread that hit the watchpoint, by the ring it held at the hit; an
    // unknown one (no ring, or no hit: WatchHit::kUnseenWrite) stays ~0.
    e.object = e.object < rings_.size() && rings_[e.object].tid >= 0 ? static_cast<uint64_t>(rings_[e.object].tid)
                                                                     : ~uint64_t{0};
  }
  if (e.kind == EventKind::kThreadEnd && reuse_) ended_.push_back(ring);
  const uint32_t domain = rt::OrderDomain(rt::LongOrder(w));
  origin_ = {ring, p.base + p.pos};
  p.pos += static_cast<size_t>(rt::RecordWords(w[0]));
  p.scan = p.pos;
  p.wait = Wait::kNone;
  p.segment_start = true;
  ++delivered_;
  Status s = Deliver(sink, e);
  if (!s.ok()) return s;
  ++domains_[domain].next;
  s = Unblock(domain);
  if (!s.ok()) return s;
  return Examine(ring);
}

Status RingMerger::Unblock(uint32_t domain) {
  if (!domains_[domain].blocked) return Status::Ok();
  // Swapped with a kept vector, not a new one: the domain's list keeps a
  // capacity, and a blocked ring costs no allocation.
  domains_[domain].blocked = false;
  unblocking_.clear();
  unblocking_.swap(blocked_[domain]);
  for (const uint32_t r : unblocking_) {
    Status s = Examine(r);
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

bool RingMerger::SkipGap() {
  uint32_t best_domain = 0;
  uint64_t best_to = 0, best_gap = ~0ull;
  for (uint32_t d = 0; d <= kExternalDomain; ++d) {
    for (uint32_t r : blocked_[d]) {
      const Pending& p = rings_[r];
      if (p.at_external) {
        const uint64_t to = p.external.front().number;
        if (to - domains_[d].next < best_gap) {
          best_gap = to - domains_[d].next;
          best_domain = d;
          best_to = to;
        }
        continue;
      }
      const uint64_t* w = p.words.data() + p.scan;
      uint64_t to = rt::OrderNumber(rt::LongOrder(w));
      const uint64_t after = rt::LongAfter(w);
      if (d == rt::kGlobalDomain && domains_[d].next < after) to = after;
      if (to - domains_[d].next < best_gap) {
        best_gap = to - domains_[d].next;
        best_domain = d;
        best_to = to;
      }
    }
  }
  if (best_gap == ~0ull) return false;
  order_gaps_ += best_gap;
  domains_[best_domain].next = best_to;
  std::vector<uint32_t> waiting;
  waiting.swap(blocked_[best_domain]);
  domains_[best_domain].blocked = false;
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
      // The undelivered rest and the new words go to a new block, and the old
      // one is freed now: kept and grown in place, it would stay the spool
      // arena's oldest block, and a FIFO arena reclaims nothing behind it.
      RingWords joined;
      joined.reserve(p.words.size() - p.pos + in.size());
      joined.insert(joined.end(), p.words.begin() + static_cast<std::ptrdiff_t>(p.pos), p.words.end());
      joined.insert(joined.end(), in.begin(), in.end());
      p.base += p.pos;
      p.scan -= p.pos;
      p.pos = 0;
      p.words.swap(joined);
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
    // Delivered in full: give the block back now rather than when the ring's
    // next words arrive. A thread that records nothing for a while (main in
    // pthread_join) would otherwise hold the arena's oldest block for that
    // long, and the arena would grow by everything copied meanwhile.
    if (p.pos == p.words.size() && p.external.empty() && !p.words.empty()) {
      p.base += p.words.size();
      RingWords().swap(p.words);
      p.pos = 0;
      p.scan = 0;
    }
  }
  if (reuse_ && !ended_.empty()) ReturnEndedRings();
  if (emitted) *emitted = delivered_ - before;
  return Status::Ok();
}

Status RingMerger::FlushRun() {
  static const std::shared_ptr<const store::RepeatedRun> kNoRepeat;
  Status s = run_size_ == 0 ? Status::Ok() : (*run_sink_)(run_.get(), run_size_, kNoRepeat);
  run_size_ = 0;
  return s;
}

Status RingMerger::AddRuns(RingBatch* batch, const RunSink& sink, uint64_t* emitted) {
  run_sink_ = &sink;
  if (run_ == nullptr) run_.reset(new Event[kRunEvents]);
  Status s = Add(
      batch, [](const Event&) { return Status::Ok(); }, emitted);  // Deliver bypasses it
  if (s.ok()) s = FlushRun();
  run_size_ = 0;
  run_sink_ = nullptr;
  return s;
}

std::vector<ThreadInfo> RingMerger::Threads() const {
  std::vector<ThreadInfo> out = retired_;
  for (uint32_t r = 0; r < rings_.size(); ++r)
    if (rings_[r].tid >= 0 && !rings_[r].returned) out.push_back(InfoOf(r));
  std::sort(out.begin(), out.end(), [](const ThreadInfo& a, const ThreadInfo& b) { return a.tid < b.tid; });
  return out;
}

// The counters are the ring's, run on across the threads that used it (the
// runtime never resets them): summed once per ring, each loss counts once.
std::vector<uint64_t> RingMerger::LostByKind() const {
  std::vector<uint64_t> lost(kNumEventKinds, 0);
  const uint32_t rings = std::min(shm_->next_ring.load(), shm_->max_rings);
  rt::RingDesc* descs = rt::RingDescs(shm_);
  for (uint32_t r = 0; r < rings; ++r)
    for (int k = 0; k < kNumEventKinds; ++k) lost[k] += descs[r].lost[k].load(std::memory_order_relaxed);
  return lost;
}

uint64_t RingMerger::ThreadsWithoutRing() const { return shm_->no_ring_threads.load(); }

}  // namespace seer::recorder
