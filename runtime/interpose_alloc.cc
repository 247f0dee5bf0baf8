// malloc-family interposition: every block handed out is a kAlloc, every block
// returned a kFree, so a later block at the same address is a fresh variable and
// memory reuse never looks like a race. Both take a global sequence number (a
// free's number precedes the real free, an allocation's follows the real
// allocation), so a reuse across threads is ordered after the free it reuses.
#include <malloc.h>

#include <cerrno>
#include <cstdint>

#include "runtime/alloc_events.h"

extern "C" {
void* __libc_malloc(size_t);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void* __libc_memalign(size_t, size_t);
void __libc_free(void*);
}

using namespace seer::rt;
using seer::EventKind;

// The interposers must be visible outside the runtime (it is built with
// -fvisibility=hidden): that is how they replace the libc functions.
#pragma GCC visibility push(default)
extern "C" {

void* malloc(size_t n) noexcept {
  void* p = __libc_malloc(n);
  RecordAlloc(p, n, SEER_RT_CALLER_PC());
  return p;
}

void* calloc(size_t count, size_t n) noexcept {
  void* p = __libc_calloc(count, n);
  RecordAlloc(p, count * n, SEER_RT_CALLER_PC());
  return p;
}

void* realloc(void* old, size_t n) noexcept {
  const uint64_t pc = SEER_RT_CALLER_PC();
  if (old == nullptr) return malloc(n);
  const size_t old_size = malloc_usable_size(old);
  // The block may move: free first, so the numbers order this free before any
  // reuse of the old block by another thread.
  RecordFree(old, old_size, pc);
  void* p = __libc_realloc(old, n);
  if (p == nullptr && n != 0)
    RecordAlloc(old, old_size, pc);  // failed: the old block lives on
  else
    RecordAlloc(p, n, pc);
  return p;
}

void free(void* p) noexcept {
  if (p == nullptr) return;
  RecordFree(p, malloc_usable_size(p), SEER_RT_CALLER_PC());
  __libc_free(p);
}

void* reallocarray(void* old, size_t count, size_t n) noexcept {
  size_t bytes;
  if (__builtin_mul_overflow(count, n, &bytes)) {
    errno = ENOMEM;
    return nullptr;
  }
  return realloc(old, bytes);
}

int posix_memalign(void** out, size_t align, size_t n) noexcept {
  if (align % sizeof(void*) != 0 || (align & (align - 1)) != 0 || align == 0) return EINVAL;
  void* p = __libc_memalign(align, n);
  if (p == nullptr) return ENOMEM;
  RecordAlloc(p, n, SEER_RT_CALLER_PC());
  *out = p;
  return 0;
}

void* aligned_alloc(size_t align, size_t n) noexcept {
  void* p = __libc_memalign(align, n);
  RecordAlloc(p, n, SEER_RT_CALLER_PC());
  return p;
}

void* memalign(size_t align, size_t n) noexcept {
  void* p = __libc_memalign(align, n);
  RecordAlloc(p, n, SEER_RT_CALLER_PC());
  return p;
}

void* valloc(size_t n) noexcept {
  void* p = __libc_memalign(static_cast<size_t>(sysconf(_SC_PAGESIZE)), n);
  RecordAlloc(p, n, SEER_RT_CALLER_PC());
  return p;
}

void* pvalloc(size_t n) noexcept {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t rounded = (n + page - 1) / page * page;
  void* p = __libc_memalign(page, rounded == 0 ? page : rounded);
  RecordAlloc(p, rounded, SEER_RT_CALLER_PC());
  return p;
}

}  // extern "C"
#pragma GCC visibility pop
