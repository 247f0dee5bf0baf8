// The C++ parts of the runtime, in their own archive (libseer_rt_cxx.a) so that C
// programs link without libstdc++: every replaceable operator new/delete (alloc
// and free events), and the guards of function-local statics, whose release
// inside libstdc++ is invisible to the hooks but pairs with the acquire load the
// compiler inlines into the program.
#include <malloc.h>

#include <cstdint>
#include <cstdlib>
#include <new>

#include "runtime/alloc_events.h"
#include "runtime/fuzz_scheduler.h"
#include "runtime/real_function.h"

extern "C" {
void* __libc_malloc(size_t);
void* __libc_memalign(size_t, size_t);
void __libc_free(void*);
}

namespace seer::rt {
namespace {

// The standard's loop: call the new-handler until it gives memory or gives up.
void* AllocateOrNull(size_t n, size_t align) {
  if (n == 0) n = 1;
  for (;;) {
    void* p = align <= alignof(std::max_align_t) ? __libc_malloc(n) : __libc_memalign(align, n);
    if (p != nullptr) return p;
    std::new_handler handler = std::get_new_handler();
    if (handler == nullptr) return nullptr;
    handler();
  }
}

SEER_RT_INLINE void* New(size_t n, size_t align, uint64_t pc) {
  void* p = AllocateOrNull(n, align);
  if (p == nullptr) throw std::bad_alloc();
  RecordAlloc(p, n, pc);
  return p;
}

SEER_RT_INLINE void* NewNothrow(size_t n, size_t align, uint64_t pc) noexcept {
  void* p = AllocateOrNull(n, align);
  RecordAlloc(p, n, pc);
  return p;
}

SEER_RT_INLINE void Delete(void* p, uint64_t pc) noexcept {
  if (p == nullptr) return;
  RecordFree(p, malloc_usable_size(p), pc);
  __libc_free(p);
}

using GuardFn = int (*)(int64_t*);
RealFunction<GuardFn> real_guard_acquire("__cxa_guard_acquire");
RealFunction<void (*)(int64_t*)> real_guard_release("__cxa_guard_release");

constexpr uint8_t kAcquireOrder = static_cast<uint8_t>(MemoryOrder::kAcquire);
constexpr uint8_t kReleaseOrder = static_cast<uint8_t>(MemoryOrder::kRelease);

// A guard found already set (acquire returned 0) is an acquire load of the
// guard; the release that sets it is a release store. Together they order the
// initialisation before every other thread's use of the static. Both are
// numbered in the guard's atomic stripe: the compilers check the guard byte
// inline first, an atomic load the hooks number there, and a number of another
// domain would leave that load unordered with the release store (a race
// reported in a race-free program, depending on how the merger interleaved the
// two). The store's number is taken before the real release sets the byte, so
// every load that sees it set is numbered after it.
SEER_RT_INLINE void PutGuardEvent(EventKind kind, uint8_t order, int64_t* guard, uint64_t pc) {
  ThreadState* ts = RecordingThread();
  if (ts == nullptr || !Reserve(ts, LongWords(1, 0), K(kind))) return;
  const uint64_t seq = TakeAtomicNumber(guard);
  if (seq == kNoSeq)
    CountLost(ts, K(kind));  // a handler's, on a stripe its thread holds
  else
    WriteLong(ts, K(kind), order, reinterpret_cast<uint64_t>(guard), 1, pc, seq);
}

}  // namespace
}  // namespace seer::rt

using namespace seer::rt;
using seer::EventKind;

void* operator new(size_t n) { return New(n, 0, SEER_RT_CALLER_PC()); }
void* operator new[](size_t n) { return New(n, 0, SEER_RT_CALLER_PC()); }
void* operator new(size_t n, const std::nothrow_t&) noexcept { return NewNothrow(n, 0, SEER_RT_CALLER_PC()); }
void* operator new[](size_t n, const std::nothrow_t&) noexcept { return NewNothrow(n, 0, SEER_RT_CALLER_PC()); }
void* operator new(size_t n, std::align_val_t a) { return New(n, static_cast<size_t>(a), SEER_RT_CALLER_PC()); }
void* operator new[](size_t n, std::align_val_t a) { return New(n, static_cast<size_t>(a), SEER_RT_CALLER_PC()); }
void* operator new(size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return NewNothrow(n, static_cast<size_t>(a), SEER_RT_CALLER_PC());
}
void* operator new[](size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return NewNothrow(n, static_cast<size_t>(a), SEER_RT_CALLER_PC());
}

void operator delete(void* p) noexcept { Delete(p, SEER_RT_CALLER_PC()); }
void operator delete[](void* p) noexcept { Delete(p, SEER_RT_CALLER_PC()); }
void operator delete(void* p, const std::nothrow_t&) noexcept { Delete(p, SEER_RT_CALLER_PC()); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { Delete(p, SEER_RT_CALLER_PC()); }
void operator delete(void* p, size_t) noexcept { Delete(p, SEER_RT_CALLER_PC()); }
void operator delete[](void* p, size_t) noexcept { Delete(p, SEER_RT_CALLER_PC()); }
void operator delete(void* p, std::align_val_t) noexcept { Delete(p, SEER_RT_CALLER_PC()); }
void operator delete[](void* p, std::align_val_t) noexcept { Delete(p, SEER_RT_CALLER_PC()); }
void operator delete(void* p, size_t, std::align_val_t) noexcept { Delete(p, SEER_RT_CALLER_PC()); }
void operator delete[](void* p, size_t, std::align_val_t) noexcept { Delete(p, SEER_RT_CALLER_PC()); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { Delete(p, SEER_RT_CALLER_PC()); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { Delete(p, SEER_RT_CALLER_PC()); }

extern "C" int __cxa_guard_acquire(int64_t* guard) {
  // Waits in the kernel while another thread runs the initialisation.
  if (FuzzOn()) return FuzzBlocking(real_guard_acquire.get(), guard);
  const int rc = real_guard_acquire.get()(guard);
  if (rc == 0) PutGuardEvent(EventKind::kAtomicLoad, kAcquireOrder, guard, SEER_RT_CALLER_PC());
  return rc;
}

extern "C" void __cxa_guard_release(int64_t* guard) noexcept {
  PutGuardEvent(EventKind::kAtomicStore, kReleaseOrder, guard, SEER_RT_CALLER_PC());
  real_guard_release.get()(guard);
  if (FuzzOn()) FuzzYield();
}
