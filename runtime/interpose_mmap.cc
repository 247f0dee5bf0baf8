// Memory mappings the program makes itself: an address range unmapped and
// mapped again is a new variable, as a block freed and allocated again is
// (interpose_alloc.cc). munmap is a free of the pages it unmaps (a write of
// them: an access of another thread that nothing orders before the unmap races
// with it), numbered before the real call; a successful mmap an allocation of
// the pages it maps (a fresh identity), numbered after the real call, so a
// mapping another thread gets at the same address comes after the unmap in
// the trace. A MAP_FIXED mmap replaces what was mapped there: a free first. A
// mremap moves or resizes: the old range is freed and the new one allocated,
// as realloc does. Failures give the replaced range back (an allocation), as a
// failed realloc does.
// Only the program's calls: glibc's malloc, the thread stacks and the dynamic
// loader map through libc's internal names. The allocations are heap blocks
// for the reports (AllocRegion::kHeap). In `--sync=ebpf` mode the runtime
// records them too (like malloc's); without the runtime they are not recorded.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdint>

#include "runtime/alloc_events.h"
#include "runtime/real_function.h"

namespace seer::rt {
namespace {

RealFunction<void* (*)(void*, size_t, int, int, int, off_t)> real_mmap("mmap");
RealFunction<void* (*)(void*, size_t, int, int, int, off_t)> real_mmap64("mmap64");
RealFunction<int (*)(void*, size_t)> real_munmap("munmap");
RealFunction<void* (*)(void*, size_t, size_t, int, ...)> real_mremap("mremap");

// A length rounded up to whole pages: what the kernel maps and unmaps. (sysconf
// reads a variable of the loader's; a function-local static would need
// libstdc++'s guards.)
SEER_RT_INLINE uint64_t Pages(size_t n) {
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  return (static_cast<uint64_t>(n) + page - 1) / page * page;
}

// MAP_FIXED without MAP_FIXED_NOREPLACE: the call replaces any mapping there.
SEER_RT_INLINE bool Replaces(int flags) { return (flags & MAP_FIXED) != 0 && (flags & MAP_FIXED_NOREPLACE) == 0; }

// The shape of mmap and mmap64: `call` is the real one.
template <typename Call>
SEER_RT_INLINE void* Map(void* addr, size_t len, int flags, uint64_t pc, Call call) {
  const bool replaces = Replaces(flags);
  if (replaces) RecordFree(addr, Pages(len), pc);
  void* p = call();
  if (p != MAP_FAILED)
    RecordAlloc(p, Pages(len), pc);
  else if (replaces)
    RecordAlloc(addr, Pages(len), pc);  // the kernel refused: the old mapping is left
  return p;
}

}  // namespace
}  // namespace seer::rt

using namespace seer::rt;

#pragma GCC visibility push(default)
extern "C" {

void* mmap(void* addr, size_t len, int prot, int flags, int fd, off_t off) noexcept {
  return Map(addr, len, flags, SEER_RT_CALLER_PC(), [&] { return real_mmap.get()(addr, len, prot, flags, fd, off); });
}

void* mmap64(void* addr, size_t len, int prot, int flags, int fd, off_t off) noexcept {
  return Map(addr, len, flags, SEER_RT_CALLER_PC(), [&] { return real_mmap64.get()(addr, len, prot, flags, fd, off); });
}

int munmap(void* addr, size_t len) noexcept {
  RecordFree(addr, Pages(len), SEER_RT_CALLER_PC());
  return real_munmap.get()(addr, len);
}

// The fifth argument (the new address) is read only when the flags say it was passed.
void* mremap(void* old, size_t old_len, size_t new_len, int flags, ...) noexcept {
  void* target = nullptr;
  if ((flags & MREMAP_FIXED) != 0) {
    va_list ap;
    va_start(ap, flags);
    target = va_arg(ap, void*);
    va_end(ap);
  }
  const uint64_t pc = SEER_RT_CALLER_PC();
  RecordFree(old, Pages(old_len), pc);
  if (target != nullptr) RecordFree(target, Pages(new_len), pc);  // replaced, as with MAP_FIXED
  void* p = real_mremap.get()(old, old_len, new_len, flags, target);
  if (p != MAP_FAILED) {
    RecordAlloc(p, Pages(new_len), pc);
    return p;
  }
  RecordAlloc(old, Pages(old_len), pc);  // refused: both ranges are what they were
  if (target != nullptr) RecordAlloc(target, Pages(new_len), pc);
  return p;
}

}  // extern "C"
#pragma GCC visibility pop
