#include "store/chunk_codec.h"

// ZSTD_c_literalCompressionMode is in zstd's experimental API (stable in the
// Debian 12 libzstd 1.5.4 the project builds against).
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <tuple>
#include <unordered_map>

#include "store/coding.h"

namespace seer::store {
namespace {

// Flags in the event's first byte; bits 0-4 hold the kind.
constexpr uint8_t kKindMask = 0x1f;
constexpr uint8_t kFlagTid = 0x20;         // a varint thread id follows: the thread changed
constexpr uint8_t kFlagExtra = 0x40;       // an extras byte follows (rare fields below)
constexpr uint8_t kFlagSameObject = 0x80;  // the object is the prediction: no object field
// Bits of the extras byte.
constexpr uint8_t kExtraMode = 0x01;  // a mode byte follows (absent: mode 0)
constexpr uint8_t kExtraAux = 0x02;   // a varint aux follows (absent: the class's last aux)

static_assert(kNumEventKinds <= kKindMask + 1, "kinds must fit in five bits");

// Objects of one class are delta-coded against the previous object of the same
// class in the same thread: addresses against addresses, locks against locks.
enum ObjectClass : uint8_t { kMemory, kSync, kThreadObj, kCode, kMisc, kNumClasses };
static_assert(kNumClasses == kObjectClasses);

constexpr std::array<uint8_t, kNumEventKinds> kClassOf = [] {
  std::array<uint8_t, kNumEventKinds> c{};
  for (auto& x : c) x = kMisc;
  for (EventKind k : {EventKind::kRead, EventKind::kWrite, EventKind::kAtomicLoad, EventKind::kAtomicStore,
                      EventKind::kAtomicRmw, EventKind::kAlloc, EventKind::kFree})
    c[static_cast<int>(k)] = kMemory;
  for (EventKind k : {EventKind::kAcquire, EventKind::kRelease, EventKind::kCondWaitBegin, EventKind::kCondWaitEnd,
                      EventKind::kSignal, EventKind::kWait, EventKind::kBarrierArrive, EventKind::kBarrierDepart})
    c[static_cast<int>(k)] = kSync;
  c[static_cast<int>(EventKind::kFork)] = kThreadObj;
  c[static_cast<int>(EventKind::kJoin)] = kThreadObj;
  c[static_cast<int>(EventKind::kFuncEntry)] = kCode;
  return c;
}();

}  // namespace

// The object each program location (pc) touched last in the current chunk. A
// location mostly touches the same object again (a global, a lock, a field) or
// one a fixed stride away (a loop over an array), so the delta against this
// prediction is usually zero (a flag bit) or one byte; it is what makes a trace
// small enough that zstd need not entropy-code it.
//
// A direct-mapped cache, not an exact map: a prediction only has to be the same
// in the encoder and the decoder, not right, so collisions cost a few bytes and
// nothing else, and a lookup is one hash and one load. Cleared per chunk so that
// chunks stay independent.
class SiteTable {
 public:
  SiteTable() { Reset(); }

  // The slot for `pc`. If it last held another pc, it now holds `pc` and the
  // `fallback` prediction.
  __attribute__((always_inline)) uint64_t& At(uint64_t pc, uint64_t fallback) {
    Slot& s = slots_[SlotOf(pc)];
    if (s.pc != pc) {
      s.pc = pc;
      s.object = fallback;
    }
    return s.object;
  }

  // What At(pc, fallback) would return, without changing the slot.
  uint64_t Peek(uint64_t pc, uint64_t fallback) const {
    const Slot& s = slots_[SlotOf(pc)];
    return s.pc == pc ? s.object : fallback;
  }
  // The slot for `pc` holds `pc` and `object`, as At(pc, ...) = object leaves it.
  void Set(uint64_t pc, uint64_t object) { slots_[SlotOf(pc)] = {pc, object}; }
  static size_t SlotOf(uint64_t pc) { return (pc * 0x9e3779b97f4a7c15ull) >> (64 - kBits); }

  void Reset() { slots_.fill(Slot{}); }

 private:
  static constexpr int kBits = 12;  // 4,096 slots, 64 KiB
  struct Slot {
    uint64_t pc = 0;
    uint64_t object = 0;
  };
  std::array<Slot, size_t{1} << kBits> slots_;
};

namespace {
// The longest encoding of one event: head, tid, mode, aux, object, pc.
constexpr ptrdiff_t kMaxEventBytes = 1 + 10 + 1 + 10 + 10 + 10;

// Writes e's encoding at p given what the state holds when it comes: whether
// the thread changed, the thread's last pc, the last aux of e's object class,
// and the object predicted for e's site. Returns the end of what it wrote.
__attribute__((always_inline)) inline uint8_t* EncodeEvent(uint8_t* p, const Event& e, bool tid_changed,
                                                           uint64_t last_pc, uint64_t last_aux, uint64_t predicted) {
  uint8_t head = static_cast<uint8_t>(e.kind);
  uint8_t extra = 0;
  if (tid_changed) head |= kFlagTid;
  if (e.mode != 0) extra |= kExtraMode;
  if (e.aux != last_aux) extra |= kExtraAux;
  if (extra != 0) head |= kFlagExtra;
  if (e.object == predicted) head |= kFlagSameObject;
  *p++ = head;
  if (tid_changed) p = coding::EncodeVarint64(p, e.tid);
  if (extra != 0) *p++ = extra;
  if (extra & kExtraMode) *p++ = e.mode;
  if (extra & kExtraAux) p = coding::EncodeVarint64(p, e.aux);
  p = coding::EncodeVarint64(p, coding::ZigZag(static_cast<int64_t>(e.pc - last_pc)));
  if (!(head & kFlagSameObject))
    p = coding::EncodeVarint64(p, coding::ZigZag(static_cast<int64_t>(e.object - predicted)));
  return p;
}

// Runs longer than this get no template (the merger gives none so long: see
// ring_merger.h), and neither do runs of which more than half the events
// depend on the state before them: copying would save little. At most
// kTemplateSlots templates are kept: about 50 KB each at the longest.
constexpr size_t kMaxTemplateEvents = 1024;
constexpr size_t kTemplateSlots = 256;
}  // namespace

struct ChunkEncoder::ThreadState {
  std::array<uint64_t, kNumClasses> object{};
  std::array<uint64_t, kNumClasses> aux{};
  uint64_t pc = 0;
};

ChunkEncoder::ChunkEncoder() : sites_(std::make_unique<SiteTable>()), cctx_(ZSTD_createCCtx()) {}
ChunkEncoder::~ChunkEncoder() { ZSTD_freeCCtx(static_cast<ZSTD_CCtx*>(cctx_)); }

void ChunkEncoder::Add(const Event& e) { AddRun(&e, 1); }

// One loop over the run, with the write position and the last thread in
// registers: as a call per event, the call's saved registers and the reloads
// of the encoder's fields were a third of the encoder's instructions.
void ChunkEncoder::AddRun(const Event* events, size_t n) {
  Reserve(n);
  uint8_t* const begin = raw_.data();
  uint8_t* p = begin + raw_size_;
  uint32_t last_tid = last_tid_;
  bool first = count_ == 0;
  for (size_t i = 0; i < n; ++i) {
    const Event& e = events[i];
    const uint8_t cls = kClassOf[static_cast<int>(e.kind)];
    if (e.tid >= threads_.size()) [[unlikely]]
      threads_.resize(e.tid + 1);
    ThreadState& ts = threads_[e.tid];
    uint64_t& site = sites_->At(e.pc, ts.object[cls]);
    p = EncodeEvent(p, e, first || e.tid != last_tid, ts.pc, ts.aux[cls], site);
    site = e.object;
    ts.object[cls] = e.object;
    ts.aux[cls] = e.aux;
    ts.pc = e.pc;
    last_tid = e.tid;
    first = false;
  }
  raw_size_ = static_cast<size_t>(p - begin);
  last_tid_ = last_tid;
  count_ += static_cast<uint32_t>(n);
}

void ChunkEncoder::Reserve(size_t n) {
  // Room for the longest encoding of every event, checked once per run.
  const size_t room = raw_size_ + n * static_cast<size_t>(kMaxEventBytes);
  if (raw_.size() < room) raw_.resize(std::max({room, raw_.size() * 2, size_t{1} << 16}));
}

// What a run's encoding needs from the state before it, event by event. Event
// i reads the thread flag and the thread's last pc (from the state for the
// first event only), its class's last aux and object, and its site's slot. An
// event whose class and slot an earlier event of the run wrote reads nothing
// from before the run: its bytes are the same whenever the run is. The others
// are the dependents: for each, which of its inputs come from the state and
// the values of those that come from the run.
struct ChunkEncoder::RunTemplate {
  struct Dependent {
    uint32_t index = 0;  // in events
    uint32_t begin = 0;  // its bytes in `bytes` (as they were encoded then)
    uint32_t end = 0;
    bool first = false;                    // the thread flag and the last pc come from the state
    bool class_from_state = false;         // the class's last aux and object come from the state
    bool site_from_state = false;          // the slot comes from the state
    uint64_t pc = 0, aux = 0, object = 0;  // otherwise: their values within the run
    uint64_t site_pc = 0, site_object = 0;
  };
  std::shared_ptr<const RepeatedRun> run;  // the run (never changes)
  bool tried = false;                      // a template was built for it (or found not worth it)
  bool usable = false;                     // one thread's, and worth it
  std::vector<uint8_t> bytes;
  std::vector<Dependent> dependents;
  // What the run leaves: the thread's state for the classes it touched (bit
  // per class), its last pc, and the (pc, object) of every slot it touched.
  uint8_t classes = 0;
  ThreadState end;
  std::vector<std::pair<uint64_t, uint64_t>> sites;
};

void ChunkEncoder::AddRepeat(const std::shared_ptr<const RepeatedRun>& run) {
  const Event* events = run->events.data();
  const size_t n = run->events.size();
  if (!use_templates_ || n == 0 || n > kMaxTemplateEvents) return AddRun(events, n);
  // Direct-mapped by thread: the memory stays bounded however many threads
  // a long recording sees; two threads that share a slot take turns.
  if (templates_.empty()) templates_.resize(kTemplateSlots);
  std::unique_ptr<RunTemplate>& t = templates_[events[0].tid % kTemplateSlots];
  if (t == nullptr) t = std::make_unique<RunTemplate>();
  // The same run (a RepeatedRun never changes), or one with the same events:
  // compared in full, padding included, since a difference only there (events
  // built apart) costs a fresh encoding, never a wrong one.
  const bool same =
      t->run != nullptr && (t->run == run || (t->run->events.size() == n &&
                                              std::memcmp(t->run->events.data(), events, n * sizeof(Event)) == 0));
  if (same && t->usable) {
    EncodeFromTemplate(*t);
    ++template_hits_;
  } else if (same && !t->tried) {
    // Its second time: worth a template (building one costs a few encodings).
    EncodeAndKeep(run, t.get());
    t->tried = true;
  } else if (same) {
    AddRun(events, n);  // no template is worth it for this run
  } else {
    // A new run: encoded plainly, noted, and given a template if it comes again.
    t->run = run;
    t->usable = false;
    t->tried = false;
    AddRun(events, n);
  }
}

void ChunkEncoder::EncodeAndKeep(const std::shared_ptr<const RepeatedRun>& run, RunTemplate* t) {
  const Event* events = run->events.data();
  const size_t n = run->events.size();
  t->run = run;
  t->usable = false;
  t->bytes.clear();
  t->dependents.clear();
  t->sites.clear();
  for (size_t i = 1; i < n; ++i)
    if (events[i].tid != events[0].tid) return AddRun(events, n);
  // The run encoded event by event, beside a state of its own that holds
  // what the run has written so far.
  const size_t start = raw_size_;
  ThreadState in;
  uint8_t seen = 0;
  std::unordered_map<size_t, size_t> site_at;  // slot -> its entry in t->sites
  for (size_t i = 0; i < n; ++i) {
    const Event& e = events[i];
    const uint8_t cls = kClassOf[static_cast<int>(e.kind)];
    const size_t slot = SiteTable::SlotOf(e.pc);
    const size_t before = raw_size_ - start;
    AddRun(&e, 1);
    const auto site = site_at.find(slot);
    const bool class_seen = (seen >> cls) & 1;
    if (i == 0 || !class_seen || site == site_at.end()) {
      RunTemplate::Dependent d;
      d.index = static_cast<uint32_t>(i);
      d.begin = static_cast<uint32_t>(before);
      d.end = static_cast<uint32_t>(raw_size_ - start);
      d.first = i == 0;
      d.class_from_state = !class_seen;
      d.site_from_state = site == site_at.end();
      d.pc = in.pc;
      d.aux = in.aux[cls];
      d.object = in.object[cls];
      if (site != site_at.end()) std::tie(d.site_pc, d.site_object) = t->sites[site->second];
      t->dependents.push_back(d);
    }
    in.pc = e.pc;
    in.aux[cls] = e.aux;
    in.object[cls] = e.object;
    seen = static_cast<uint8_t>(seen | (1u << cls));
    if (site == site_at.end()) {
      site_at.emplace(slot, t->sites.size());
      t->sites.emplace_back(e.pc, e.object);
    } else {
      t->sites[site->second] = {e.pc, e.object};
    }
  }
  if (t->dependents.size() > n / 2) return;
  t->bytes.assign(raw_.begin() + static_cast<ptrdiff_t>(start), raw_.begin() + static_cast<ptrdiff_t>(raw_size_));
  t->classes = seen;
  t->end = in;
  t->usable = true;
}

// The dependents are encoded against the state before the run: nothing is
// written into the state until the end, and a dependent reads from it only
// what no earlier event of the run wrote.
void ChunkEncoder::EncodeFromTemplate(const RunTemplate& t) {
  const std::vector<Event>& events = t.run->events;
  Reserve(events.size());
  const uint32_t tid = events[0].tid;
  if (tid >= threads_.size()) threads_.resize(tid + 1);
  ThreadState& ts = threads_[tid];
  uint8_t* p = raw_.data() + raw_size_;
  const uint8_t* bytes = t.bytes.data();
  size_t copied = 0;
  for (const RunTemplate::Dependent& d : t.dependents) {
    std::memcpy(p, bytes + copied, d.begin - copied);
    p += d.begin - copied;
    const Event& e = events[d.index];
    const uint8_t cls = kClassOf[static_cast<int>(e.kind)];
    const bool tid_changed = d.first && (count_ == 0 || last_tid_ != tid);
    const uint64_t last_pc = d.first ? ts.pc : d.pc;
    const uint64_t aux = d.class_from_state ? ts.aux[cls] : d.aux;
    const uint64_t fallback = d.class_from_state ? ts.object[cls] : d.object;
    const uint64_t predicted =
        d.site_from_state ? sites_->Peek(e.pc, fallback) : (d.site_pc == e.pc ? d.site_object : fallback);
    p = EncodeEvent(p, e, tid_changed, last_pc, aux, predicted);
    copied = d.end;
  }
  std::memcpy(p, bytes + copied, t.bytes.size() - copied);
  p += t.bytes.size() - copied;
  for (int c = 0; c < kNumClasses; ++c) {
    if (!((t.classes >> c) & 1)) continue;
    ts.object[c] = t.end.object[c];
    ts.aux[c] = t.end.aux[c];
  }
  ts.pc = t.end.pc;
  for (const auto& [pc, object] : t.sites) sites_->Set(pc, object);
  last_tid_ = tid;
  raw_size_ = static_cast<size_t>(p - raw_.data());
  count_ += static_cast<uint32_t>(events.size());
}

Status ChunkEncoder::Finish(uint64_t first_index, int zstd_level, bool entropy_coding, std::string* out) {
  auto* cctx = static_cast<ZSTD_CCtx*>(cctx_);
  out->clear();
  coding::PutFixed64(out, first_index);
  coding::PutFixed32(out, count_);
  coding::PutFixed32(out, static_cast<uint32_t>(raw_size_));
  size_t bound = ZSTD_compressBound(raw_size_);
  out->resize(kChunkHeaderSize + bound);
  ZSTD_CCtx_reset(cctx, ZSTD_reset_session_and_parameters);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, zstd_level);
  // The frame checksum is how a flipped byte inside a chunk is detected.
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 1);
  // The site prediction leaves little for entropy coding to gain (a few tenths
  // of a byte per event) at several times the decompression cost, so literals
  // are stored raw unless the writer asks otherwise; zstd still finds repeats.
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_literalCompressionMode, entropy_coding ? ZSTD_ps_enable : ZSTD_ps_disable);
  // Matches of at least 6 bytes: zstd's default (5 at level 3) finds many short
  // repeats in these few-byte events, and each match costs the reader a sequence
  // to execute. Measured on a `seer gen` trace: decode (zstd included) takes a
  // third fewer instructions for about 0.5 more bytes per event (2.8 -> 3.3).
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_minMatch, 6);
  size_t n = ZSTD_compress2(cctx, out->data() + kChunkHeaderSize, bound, raw_.data(), raw_size_);
  if (ZSTD_isError(n)) return Status::Internal(std::string("zstd compression failed: ") + ZSTD_getErrorName(n));
  out->resize(kChunkHeaderSize + n);
  raw_size_ = 0;
  count_ = 0;
  threads_.clear();
  sites_->Reset();
  return Status::Ok();
}

ChunkDecoder::ChunkDecoder() : sites_(std::make_unique<SiteTable>()), dctx_(ZSTD_createDCtx()) {}
ChunkDecoder::~ChunkDecoder() { ZSTD_freeDCtx(static_cast<ZSTD_DCtx*>(dctx_)); }

Status ChunkDecoder::Load(std::string_view value) {
  pos_ = end_ = nullptr;
  event_count_ = decoded_ = 0;
  threads_.clear();
  sites_->Reset();
  cur_tid_ = 0;
  cur_ = nullptr;
  if (value.size() < kChunkHeaderSize) return Status::Corruption("chunk shorter than its header");
  auto* p = reinterpret_cast<const uint8_t*>(value.data());
  first_index_ = coding::DecodeFixed64(p);
  const uint32_t count = coding::DecodeFixed32(p + 8);
  const uint32_t raw_size = coding::DecodeFixed32(p + 12);
  const void* frame = value.data() + kChunkHeaderSize;
  const size_t frame_size = value.size() - kChunkHeaderSize;
  unsigned long long content = ZSTD_getFrameContentSize(frame, frame_size);
  if (content == ZSTD_CONTENTSIZE_ERROR || content == ZSTD_CONTENTSIZE_UNKNOWN)
    return Status::Corruption("chunk payload is not a zstd frame");
  if (content != raw_size)
    return Status::Corruption("chunk header says " + std::to_string(raw_size) + " bytes, its zstd frame holds " +
                              std::to_string(content));
  // Each event takes at least two bytes; a count beyond that is damage, and
  // checking it here bounds the work of a fuzzed header.
  if (count > raw_size / 2 + 1) return Status::Corruption("chunk event count exceeds its size");
  // And each takes at most kMaxEventBytes: a damaged header that claims a huge
  // payload for few events must not make us allocate it.
  if (raw_size > uint64_t{count} * static_cast<uint64_t>(kMaxEventBytes))
    return Status::Corruption("chunk size " + std::to_string(raw_size) + " exceeds what " + std::to_string(count) +
                              " events can take");
  // The frame's checksum is what finds a changed byte in the events, so a frame
  // without one (a flipped flag bit) is damage too; and the frame must fill the
  // value exactly.
  const auto* frame_bytes = static_cast<const uint8_t*>(frame);
  if (frame_size < 5 || coding::DecodeFixed32(frame_bytes) != ZSTD_MAGICNUMBER || !(frame_bytes[4] & 0x04))
    return Status::Corruption("chunk's zstd frame has no checksum");
  if (ZSTD_findFrameCompressedSize(frame, frame_size) != frame_size)
    return Status::Corruption("chunk's zstd frame does not fill the chunk");
  raw_.resize(raw_size);
  size_t n = ZSTD_decompressDCtx(static_cast<ZSTD_DCtx*>(dctx_), raw_.data(), raw_.size(), frame, frame_size);
  if (ZSTD_isError(n)) return Status::Corruption(std::string("zstd: ") + ZSTD_getErrorName(n));
  if (n != raw_size) return Status::Corruption("chunk decompressed to the wrong size");
  pos_ = reinterpret_cast<const uint8_t*>(raw_.data());
  end_ = pos_ + raw_.size();
  event_count_ = count;
  return Status::Ok();
}

namespace {

// Varint read without a bounds check; the caller guarantees kMaxEventBytes.
inline const uint8_t* GetVarintUnchecked(const uint8_t* p, uint64_t* v) {
  uint64_t b = *p++;
  if (b < 0x80) {
    *v = b;
    return p;
  }
  uint64_t r = b & 0x7f;
  for (int shift = 7; shift <= 63; shift += 7) {
    b = *p++;
    r |= (b & 0x7f) << shift;
    if (b < 0x80) {
      *v = r;
      return p;
    }
  }
  return nullptr;  // longer than ten bytes
}

}  // namespace

// The decoder's running state, held in locals during a Decode call so that the
// compiler keeps it in registers: stores into Event (whose uint8_t fields may
// alias anything) would otherwise force it to reload member fields per event.
struct ChunkDecoder::Cursor {
  const uint8_t* p;
  const uint8_t* end;
  uint32_t tid;
  ThreadState* ts;
};

// Decodes one event at c->p into *e. kChecked: bounds-check every byte (near the
// end of the chunk); otherwise the caller has checked that kMaxEventBytes remain.
// Returns nullptr on success or the reason the bytes are malformed.
template <bool kChecked>
__attribute__((always_inline)) inline const char* ChunkDecoder::DecodeOne(Cursor* c, Event* e) {
  const uint8_t* p = c->p;
  auto varint = [&](uint64_t* v) {
    if constexpr (kChecked) {
      p = coding::GetVarint64(p, c->end, v);
    } else {
      p = GetVarintUnchecked(p, v);
    }
    return p != nullptr;
  };
  if (kChecked && p >= c->end) return "chunk ends inside an event";
  const uint8_t head = *p++;
  const uint8_t kind = head & kKindMask;
  if (kind >= kNumEventKinds) return "unknown event kind";
  uint64_t v;
  if (head & kFlagTid) {
    if (!varint(&v)) return "bad thread id";
    if (v >= kMaxThreads) return "thread id out of range";
    c->tid = static_cast<uint32_t>(v);
    if (c->tid >= threads_.size()) threads_.resize(c->tid + 1);
    c->ts = &threads_[c->tid];
  } else if (c->ts == nullptr) {
    return "first event of the chunk has no thread id";
  }
  ThreadState& ts = *c->ts;
  const uint8_t cls = kClassOf[kind];
  Event ev;
  ev.index = e->index;
  ev.kind = static_cast<EventKind>(kind);
  ev.tid = c->tid;
  if (head & kFlagExtra) {
    if (kChecked && p >= c->end) return "chunk ends inside an event";
    const uint8_t extra = *p++;
    if (extra & ~(kExtraMode | kExtraAux)) return "unknown extra fields";
    if (extra & kExtraMode) {
      if (kChecked && p >= c->end) return "chunk ends inside an event";
      ev.mode = *p++;
    }
    if (extra & kExtraAux) {
      if (!varint(&v)) return "bad aux field";
      ts.aux[cls] = v;
    }
  }
  ev.aux = ts.aux[cls];
  if (!varint(&v)) return "bad pc field";
  ev.pc = ts.pc += static_cast<uint64_t>(coding::UnZigZag(v));
  uint64_t& site = sites_->At(ev.pc, ts.object[cls]);
  if (!(head & kFlagSameObject)) {
    if (!varint(&v)) return "bad object field";
    site += static_cast<uint64_t>(coding::UnZigZag(v));
  }
  ev.object = ts.object[cls] = site;
  *e = ev;
  c->p = p;
  return nullptr;
}

Status ChunkDecoder::Decode(uint32_t n, Event* out) {
  if (n > remaining()) return Status::Internal("decode past the end of a chunk");
  Cursor c{pos_, end_, cur_tid_, cur_};
  uint64_t index = first_index_ + decoded_;
  for (uint32_t i = 0; i < n; ++i, ++index) {
    Event* e = &out[i];
    e->index = index;
    const char* error = (c.end - c.p >= kMaxEventBytes) ? DecodeOne<false>(&c, e) : DecodeOne<true>(&c, e);
    if (error != nullptr) {
      pos_ = end_;
      decoded_ = event_count_;  // nothing more comes out of a damaged chunk
      return Status::Corruption("event " + std::to_string(index) + ": " + error);
    }
  }
  pos_ = c.p;
  cur_tid_ = c.tid;
  cur_ = c.ts;
  decoded_ += n;
  if (remaining() == 0 && pos_ != end_) return Status::Corruption("chunk has bytes after its last event");
  return Status::Ok();
}

Status ChunkDecoder::Decode(uint32_t max, std::vector<Event>* out) {
  const uint32_t n = std::min(max, remaining());
  const size_t base = out->size();
  out->resize(base + n);
  Status s = Decode(n, out->data() + base);
  if (!s.ok()) out->resize(base);
  return s;
}

}  // namespace seer::store
