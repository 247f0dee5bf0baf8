// Memory for the ring words the collector copies out of the shared rings: one
// large mapping advised for transparent huge pages, handed out first in, first
// out. The collector writes hundreds of MB per second into fresh memory; with
// 4 KiB pages most of its time went to page faults (perf: 70% of its samples),
// with 2 MiB pages almost none does. Words are freed in about the order they
// were copied (batches are merged in order), so a FIFO arena reuses its pages
// with no fragmentation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>

namespace seer::recorder {

class SpoolArena {
 public:
  // Address space reserved, not memory: pages are committed as blocks first
  // touch them and stay resident for reuse.
  static constexpr uint64_t kCapacity = 8ull << 30;

  // The process's arena (reserved on first use).
  static SpoolArena& Get();

  // Memory for `bytes`, 64-byte aligned. Falls back to malloc when the arena
  // is full (a block still in use holds its oldest end) or could not be mapped.
  void* Allocate(size_t bytes);
  void Free(void* p);

  // Bounds the part of the reservation blocks may use (and so the arena's
  // resident pages) to `bytes`, at least 64 MiB and at most kCapacity; blocks
  // that do not fit come from malloc and go back to it when freed. The
  // long-running service sets it: a block kept long (a ring whose next record
  // waits for another ring, a thread that records rarely) holds the arena's
  // oldest end, and every later block then goes further, touching fresh pages
  // that stay resident (the daemon grew by gigabytes under load: docs/daemon.md).
  // Takes effect for blocks placed after the call.
  void SetExtent(uint64_t bytes);

  // Bytes from the oldest block not reclaimed to the newest; 0 when empty.
  uint64_t span_bytes();
  // True when `p` (from Allocate) lies in the arena, not in a malloc fallback.
  bool InArena(const void* p) const;
  // Blocks that did not fit in the arena and came from malloc (fresh pages,
  // given back to the kernel when freed) since the process started.
  uint64_t fallbacks();

  SpoolArena(const SpoolArena&) = delete;
  SpoolArena& operator=(const SpoolArena&) = delete;

 private:
  SpoolArena();
  struct Header;

  std::mutex mu_;
  char* base_ = nullptr;  // nullptr: no arena, every block comes from malloc
  uint64_t capacity_ = 0;
  uint64_t head_ = 0;      // where the next block goes
  uint64_t tail_ = 0;      // the oldest block not yet reclaimed (== head_: empty)
  uint64_t wrap_ = 0;      // when head_ < tail_: end of the blocks before the wrap
  uint64_t lap_peak_ = 0;  // the most in use (head_ - tail_) since the last wrap
  uint64_t fallbacks_ = 0;
};

// A std::allocator for vectors of copied ring words, backed by the arena.
template <typename T>
struct SpoolAllocator {
  using value_type = T;
  SpoolAllocator() = default;
  template <typename U>
  SpoolAllocator(const SpoolAllocator<U>&) {}  // NOLINT: allocators convert implicitly
  T* allocate(size_t n) { return static_cast<T*>(SpoolArena::Get().Allocate(n * sizeof(T))); }
  void deallocate(T* p, size_t) { SpoolArena::Get().Free(p); }
  template <typename U>
  bool operator==(const SpoolAllocator<U>&) const {
    return true;
  }
};

}  // namespace seer::recorder
