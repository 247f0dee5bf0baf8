// Transparent huge pages for a window's largest vectors. Each window fills tens
// of MB of fresh memory (its events, the model's nodes), and with 4 KB pages
// the kernel's fault per page was about a tenth of the engines' CPU time.
// Where the system grants huge pages on request (transparent_hugepage set to
// "madvise", as on Debian), one fault maps 2 MB instead. Nothing changes
// but the page size: on other systems, or for a small vector, it does nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace seer::predictor::seqcheck {

// Reserves room for `n` elements in `v` and asks for huge pages for the whole
// 2 MB pages inside it, before anything touches them (a page already faulted
// in stays small). Call it on an empty vector, or one whose capacity is short.
template <typename T>
void ReserveHuge(std::vector<T>* v, size_t n) {
  if (v->capacity() >= n) return;
  v->reserve(n);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr uintptr_t kHuge = uintptr_t{2} << 20;
  const uintptr_t begin = reinterpret_cast<uintptr_t>(v->data() + v->size());
  const uintptr_t end = reinterpret_cast<uintptr_t>(v->data() + v->capacity());
  const uintptr_t first = (begin + kHuge - 1) & ~(kHuge - 1);
  const uintptr_t last = end & ~(kHuge - 1);
  if (first < last) (void)madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#endif
}

}  // namespace seer::predictor::seqcheck
