#include "store/chunk_codec.h"

#include <zstd.h>

#include <array>
#include <string>

#include "store/coding.h"

namespace seer {
namespace {

// Flags in the event's first byte; bits 0-4 hold the kind.
constexpr uint8_t kKindMask = 0x1f;
constexpr uint8_t kFlagTid = 0x20;   // a varint thread id follows: the thread changed
constexpr uint8_t kFlagMode = 0x40;  // a mode byte follows (absent: mode 0)
constexpr uint8_t kFlagAux = 0x80;   // a varint aux follows (absent: the class's last aux)

static_assert(kNumEventKinds <= kKindMask + 1, "kinds must fit in five bits");

// Objects of one class are delta-coded against the previous object of the same
// class in the same thread: addresses against addresses, locks against locks.
enum ObjectClass : uint8_t { kMemory, kSync, kThreadObj, kCode, kMisc, kNumClasses };

constexpr std::array<uint8_t, kNumEventKinds> kClassOf = [] {
  std::array<uint8_t, kNumEventKinds> c{};
  for (auto& x : c) x = kMisc;
  for (EventKind k : {EventKind::kRead, EventKind::kWrite, EventKind::kAtomicLoad,
                      EventKind::kAtomicStore, EventKind::kAtomicRmw, EventKind::kAlloc,
                      EventKind::kFree})
    c[static_cast<int>(k)] = kMemory;
  for (EventKind k : {EventKind::kAcquire, EventKind::kRelease, EventKind::kCondWaitBegin,
                      EventKind::kCondWaitEnd, EventKind::kSignal, EventKind::kWait,
                      EventKind::kBarrierArrive, EventKind::kBarrierDepart})
    c[static_cast<int>(k)] = kSync;
  c[static_cast<int>(EventKind::kFork)] = kThreadObj;
  c[static_cast<int>(EventKind::kJoin)] = kThreadObj;
  c[static_cast<int>(EventKind::kFuncEntry)] = kCode;
  return c;
}();

}  // namespace

struct ChunkEncoder::ThreadState {
  std::array<uint64_t, kNumClasses> object{};
  std::array<uint64_t, kNumClasses> aux{};
  uint64_t pc = 0;
};

struct ChunkDecoder::ThreadState {
  std::array<uint64_t, kNumClasses> object{};
  std::array<uint64_t, kNumClasses> aux{};
  uint64_t pc = 0;
};

ChunkEncoder::ChunkEncoder() : cctx_(ZSTD_createCCtx()) {}
ChunkEncoder::~ChunkEncoder() { ZSTD_freeCCtx(static_cast<ZSTD_CCtx*>(cctx_)); }

ChunkEncoder::ThreadState& ChunkEncoder::StateOf(uint32_t tid) {
  if (tid >= threads_.size()) threads_.resize(tid + 1);
  return threads_[tid];
}

void ChunkEncoder::Add(const Event& e) {
  const uint8_t cls = kClassOf[static_cast<int>(e.kind)];
  ThreadState& ts = StateOf(e.tid);
  uint8_t head = static_cast<uint8_t>(e.kind);
  const bool tid_changed = count_ == 0 || e.tid != last_tid_;
  if (tid_changed) head |= kFlagTid;
  if (e.mode != 0) head |= kFlagMode;
  if (e.aux != ts.aux[cls]) head |= kFlagAux;
  raw_.push_back(static_cast<char>(head));
  if (tid_changed) coding::PutVarint64(&raw_, e.tid);
  if (e.mode != 0) raw_.push_back(static_cast<char>(e.mode));
  if (head & kFlagAux) coding::PutVarint64(&raw_, e.aux);
  coding::PutVarint64(&raw_, coding::ZigZag(static_cast<int64_t>(e.object - ts.object[cls])));
  coding::PutVarint64(&raw_, coding::ZigZag(static_cast<int64_t>(e.pc - ts.pc)));
  ts.object[cls] = e.object;
  ts.aux[cls] = e.aux;
  ts.pc = e.pc;
  last_tid_ = e.tid;
  ++count_;
}

Status ChunkEncoder::Finish(uint64_t first_index, int zstd_level, std::string* out) {
  auto* cctx = static_cast<ZSTD_CCtx*>(cctx_);
  out->clear();
  coding::PutFixed64(out, first_index);
  coding::PutFixed32(out, count_);
  coding::PutFixed32(out, static_cast<uint32_t>(raw_.size()));
  size_t bound = ZSTD_compressBound(raw_.size());
  out->resize(kChunkHeaderSize + bound);
  ZSTD_CCtx_reset(cctx, ZSTD_reset_session_and_parameters);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, zstd_level);
  // The frame checksum is how a flipped byte inside a chunk is detected.
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 1);
  size_t n = ZSTD_compress2(cctx, out->data() + kChunkHeaderSize, bound, raw_.data(), raw_.size());
  if (ZSTD_isError(n)) return Status::Internal(std::string("zstd compression failed: ") + ZSTD_getErrorName(n));
  out->resize(kChunkHeaderSize + n);
  raw_.clear();
  count_ = 0;
  threads_.clear();
  return Status::Ok();
}

ChunkDecoder::ChunkDecoder() : dctx_(ZSTD_createDCtx()) {}
ChunkDecoder::~ChunkDecoder() { ZSTD_freeDCtx(static_cast<ZSTD_DCtx*>(dctx_)); }

Status ChunkDecoder::Load(std::string_view value) {
  pos_ = end_ = nullptr;
  event_count_ = decoded_ = 0;
  threads_.clear();
  cur_tid_ = 0;
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
    return Status::Corruption("chunk header says " + std::to_string(raw_size) +
                              " bytes, its zstd frame holds " + std::to_string(content));
  // Each event takes at least three bytes; a count beyond that is damage, and
  // checking it here bounds the work of a fuzzed header.
  if (count > raw_size / 3 + 1) return Status::Corruption("chunk event count exceeds its size");
  raw_.resize(raw_size);
  size_t n = ZSTD_decompressDCtx(static_cast<ZSTD_DCtx*>(dctx_), raw_.data(), raw_.size(), frame, frame_size);
  if (ZSTD_isError(n)) return Status::Corruption(std::string("zstd: ") + ZSTD_getErrorName(n));
  if (n != raw_size) return Status::Corruption("chunk decompressed to the wrong size");
  pos_ = reinterpret_cast<const uint8_t*>(raw_.data());
  end_ = pos_ + raw_.size();
  event_count_ = count;
  return Status::Ok();
}

Status ChunkDecoder::Decode(uint32_t max, std::vector<Event>* out) {
  const uint32_t n = std::min(max, remaining());
  const size_t base = out->size();
  out->resize(base + n);
  Event* ev = out->data() + base;
  const uint8_t* p = pos_;
  const uint8_t* const end = end_;
  uint32_t tid = cur_tid_;
  ThreadState* ts = tid < threads_.size() ? &threads_[tid] : nullptr;
  for (uint32_t i = 0; i < n; ++i) {
    auto fail = [&](const char* what) {
      out->resize(base + i);
      return Status::Corruption("event " + std::to_string(first_index_ + decoded_ + i) + ": " + what);
    };
    if (p >= end) return fail("chunk ends inside an event");
    const uint8_t head = *p++;
    const uint8_t kind = head & kKindMask;
    if (kind >= kNumEventKinds) return fail("unknown event kind");
    uint64_t v;
    if (head & kFlagTid) {
      if (!(p = coding::GetVarint64(p, end, &v))) return fail("bad thread id");
      if (v >= kMaxThreads) return fail("thread id out of range");
      tid = static_cast<uint32_t>(v);
      if (tid >= threads_.size()) threads_.resize(tid + 1);
      ts = &threads_[tid];
    } else if (ts == nullptr) {
      return fail("first event of the chunk has no thread id");
    }
    Event& e = ev[i];
    const uint8_t cls = kClassOf[kind];
    e.kind = static_cast<EventKind>(kind);
    e.tid = tid;
    e.index = first_index_ + decoded_ + i;
    e.mode = 0;
    if (head & kFlagMode) {
      if (p >= end) return fail("chunk ends inside an event");
      e.mode = *p++;
    }
    if (head & kFlagAux) {
      if (!(p = coding::GetVarint64(p, end, &v))) return fail("bad aux field");
      ts->aux[cls] = v;
    }
    e.aux = ts->aux[cls];
    if (!(p = coding::GetVarint64(p, end, &v))) return fail("bad object field");
    ts->object[cls] += static_cast<uint64_t>(coding::UnZigZag(v));
    e.object = ts->object[cls];
    if (!(p = coding::GetVarint64(p, end, &v))) return fail("bad pc field");
    ts->pc += static_cast<uint64_t>(coding::UnZigZag(v));
    e.pc = ts->pc;
  }
  pos_ = p;
  cur_tid_ = tid;
  decoded_ += n;
  if (remaining() == 0 && pos_ != end_) return Status::Corruption("chunk has bytes after its last event");
  return Status::Ok();
}

}  // namespace seer
