#include "recorder/merge/spool_arena.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <new>

namespace seer::recorder {
namespace {

// The spool's own bound (InprocOptions::max_spool_bytes) keeps the blocks in use
// far below kCapacity; a block kept long (a ring whose next record waits for
// another ring) only makes later blocks go further before the arena wraps, and
// past the end they come from malloc.
constexpr uint64_t kAlign = 64;
// The arena wraps early once the free front holds this many times the most
// that was in use during the current lap (and the new block): the blocks still
// in use behind the tail must drain before the front fills, or the next blocks
// come from malloc. The lap's peak, not the bytes in use at the moment of the
// wrap, since blocks live for a round of the collector and merger at least,
// and the moment may fall between two rounds. Twice: the arena's resident
// memory is then about three times the spool's peak. Once was too little (the
// merger's blocks held back for a round fell to malloc: RingMergerTest), and
// four times the bytes in use at the moment made a 256 MiB spool touch 1.2 GB
// of fresh pages, which are slow to fault in on a VM whose host reclaims freed
// memory (docs/runtime.md has the figures).
constexpr uint64_t kFrontRoom = 2;
constexpr uint32_t kInArena = 0x5e5e0001, kFromMalloc = 0x5e5e0002, kReleased = 0x5e5e0003;

}  // namespace

// Before every block, so that Free needs only the pointer. 64 bytes keep the
// words after it aligned to a cache line.
struct alignas(kAlign) SpoolArena::Header {
  uint64_t size;   // bytes of the block, header included
  uint32_t state;  // kInArena, kFromMalloc or kReleased
};

SpoolArena& SpoolArena::Get() {
  static SpoolArena* arena = new SpoolArena();  // never destroyed: vectors may outlive statics
  return *arena;
}

SpoolArena::SpoolArena() {
  void* p = mmap(nullptr, kCapacity, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return;  // every block from malloc
  // Best effort: without THP (or with it disabled) the arena still reuses pages.
  madvise(p, kCapacity, MADV_HUGEPAGE);
  base_ = static_cast<char*>(p);
  capacity_ = kCapacity;
}

void* SpoolArena::Allocate(size_t bytes) {
  static_assert(sizeof(Header) == kAlign);
  const uint64_t need = (static_cast<uint64_t>(bytes) + sizeof(Header) + kAlign - 1) / kAlign * kAlign;
  if (base_ != nullptr) {
    std::lock_guard<std::mutex> lock(mu_);
    uint64_t at = UINT64_MAX;
    if (head_ >= tail_ && wrap_ == 0) {
      // In use: [tail_, head_). Free: after head_, and before tail_.
      // Back to the front as soon as it has room for several times what is in
      // use: its pages are resident already, while pages past head_ are fresh
      // ones the kernel must fault in and zero (perf: `clear_page_erms` took a
      // third of the recorder's samples when the arena only wrapped at its end,
      // and the recorder's RSS grew to everything it had ever copied).
      lap_peak_ = std::max(lap_peak_, head_ - tail_ + need);
      if (need < tail_ && tail_ / kFrontRoom >= lap_peak_) {
        wrap_ = head_;
        lap_peak_ = 0;
        at = 0;
      } else if (head_ + need <= capacity_) {
        at = head_;
      } else if (need < tail_) {
        wrap_ = head_;
        lap_peak_ = 0;
        at = 0;
      }
    } else if (head_ + need < tail_) {
      // Wrapped. In use: [tail_, wrap_) and [0, head_). Free: [head_, tail_).
      at = head_;
    }
    if (at != UINT64_MAX) {
      head_ = at + need;
      Header* h = reinterpret_cast<Header*>(base_ + at);
      h->size = need;
      h->state = kInArena;
      return h + 1;
    }
    ++fallbacks_;
  }
  void* p = std::aligned_alloc(kAlign, need);
  if (p == nullptr) throw std::bad_alloc();
  Header* h = static_cast<Header*>(p);
  h->size = need;
  h->state = kFromMalloc;
  return h + 1;
}

void SpoolArena::Free(void* p) {
  if (p == nullptr) return;
  Header* h = static_cast<Header*>(p) - 1;
  if (h->state == kFromMalloc) {
    std::free(h);
    return;
  }
  std::lock_guard<std::mutex> lock(mu_);
  h->state = kReleased;
  // Reclaim from the oldest end every block released so far.
  for (;;) {
    if (wrap_ != 0 && tail_ == wrap_) {
      tail_ = 0;
      wrap_ = 0;
    }
    if (tail_ == head_ && wrap_ == 0) break;
    Header* oldest = reinterpret_cast<Header*>(base_ + tail_);
    if (oldest->state != kReleased) break;
    tail_ += oldest->size;
  }
  // Empty: start again at the front, where the pages are warm.
  if (tail_ == head_ && wrap_ == 0) tail_ = head_ = 0;
}

void SpoolArena::SetExtent(uint64_t bytes) {
  constexpr uint64_t kMinExtent = 64ull << 20;
  std::lock_guard<std::mutex> lock(mu_);
  if (base_ == nullptr) return;
  capacity_ = std::min(std::max(bytes, kMinExtent), kCapacity);
}

bool SpoolArena::InArena(const void* p) const {
  const char* c = static_cast<const char*>(p);
  return base_ != nullptr && c >= base_ &&
         c < base_ + kCapacity;  // the reservation: SetExtent may have shrunk capacity_
}

uint64_t SpoolArena::fallbacks() {
  std::lock_guard<std::mutex> lock(mu_);
  return fallbacks_;
}

uint64_t SpoolArena::span_bytes() {
  std::lock_guard<std::mutex> lock(mu_);
  return wrap_ != 0 ? (wrap_ - tail_) + head_ : head_ - tail_;
}

}  // namespace seer::recorder
