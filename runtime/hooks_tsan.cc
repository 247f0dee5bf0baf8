// The ThreadSanitizer instrumentation entry points that gcc 12 and clang 14 emit
// under -fsanitize=thread (plain accesses, ranges, function entry/exit, vptr).
// Each is a thin shell around one always-inlined fast path, after compiler-rt's
// tsan_interface.inc. Atomics are in hooks_atomic.cc.
#include <cstdint>

#include "runtime/fuzz_scheduler.h"
#include "runtime/rt_state.h"
#include "runtime/watchpoints.h"

namespace seer::rt {
namespace {

SEER_RT_INLINE void Access(EventKind kind, const void* addr, uint64_t size, uint64_t pc) {
  PutAccessFast(K(kind), size, reinterpret_cast<uint64_t>(addr), pc);
}

SEER_RT_INLINE void Range(EventKind kind, const void* addr, uint64_t size, uint64_t pc) {
  ThreadState* ts = RecordingThread();
  if (__builtin_expect(ts == nullptr, 0)) {
    // A range is never sampled, but may touch a watched variable (memcpy).
    if (__builtin_expect(g_watch.on, 0) && g_watch.armed.load(std::memory_order_relaxed) != 0)
      WatchCheck(reinterpret_cast<uint64_t>(addr), size, kind == EventKind::kWrite, pc);
    FuzzAccess(reinterpret_cast<uint64_t>(addr), size, kind == EventKind::kWrite, pc);
    return;
  }
  PutRange(ts, kind, reinterpret_cast<uint64_t>(addr), size, pc);
}

// <sanitizer/common_interface_defs.h>'s unaligned loads and stores (below):
// the access, then the copy, as ThreadSanitizer defines them. __builtin_memcpy:
// never the runtime's own interposed memcpy, which would record it again.
template <typename T>
SEER_RT_INLINE T UnalignedLoad(const void* a, uint64_t pc) {
  Access(EventKind::kRead, a, sizeof(T), pc);
  T v;
  __builtin_memcpy(&v, a, sizeof v);
  return v;
}
template <typename T>
SEER_RT_INLINE void UnalignedStore(void* a, T v, uint64_t pc) {
  Access(EventKind::kWrite, a, sizeof(T), pc);
  __builtin_memcpy(a, &v, sizeof v);
}

constexpr EventKind R = EventKind::kRead;
constexpr EventKind W = EventKind::kWrite;

}  // namespace
}  // namespace seer::rt

using namespace seer::rt;

SEER_RT_EXPORT void __tsan_init() { Initialize(); }

SEER_RT_EXPORT void __tsan_read1(void* a) { Access(R, a, 1, SEER_RT_CALLER_PC()); }
SEER_RT_EXPORT void __tsan_read2(void* a) { Access(R, a, 2, SEER_RT_CALLER_PC()); }
SEER_RT_EXPORT void __tsan_read4(void* a) { Access(R, a, 4, SEER_RT_CALLER_PC()); }
SEER_RT_EXPORT void __tsan_read8(void* a) { Access(R, a, 8, SEER_RT_CALLER_PC()); }
SEER_RT_EXPORT void __tsan_read16(void* a) { Access(R, a, 16, SEER_RT_CALLER_PC()); }
SEER_RT_EXPORT void __tsan_write1(void* a) { Access(W, a, 1, SEER_RT_CALLER_PC()); }
SEER_RT_EXPORT void __tsan_write2(void* a) { Access(W, a, 2, SEER_RT_CALLER_PC()); }
SEER_RT_EXPORT void __tsan_write4(void* a) { Access(W, a, 4, SEER_RT_CALLER_PC()); }
SEER_RT_EXPORT void __tsan_write8(void* a) { Access(W, a, 8, SEER_RT_CALLER_PC()); }
SEER_RT_EXPORT void __tsan_write16(void* a) { Access(W, a, 16, SEER_RT_CALLER_PC()); }

SEER_RT_EXPORT void __tsan_unaligned_read2(const void* a) { Access(R, a, 2, SEER_RT_CALLER_PC()); }
SEER_RT_EXPORT void __tsan_unaligned_read4(const void* a) { Access(R, a, 4, SEER_RT_CALLER_PC()); }
SEER_RT_EXPORT void __tsan_unaligned_read8(const void* a) { Access(R, a, 8, SEER_RT_CALLER_PC()); }
SEER_RT_EXPORT void __tsan_unaligned_read16(const void* a) { Access(R, a, 16, SEER_RT_CALLER_PC()); }
SEER_RT_EXPORT void __tsan_unaligned_write2(void* a) { Access(W, a, 2, SEER_RT_CALLER_PC()); }
SEER_RT_EXPORT void __tsan_unaligned_write4(void* a) { Access(W, a, 4, SEER_RT_CALLER_PC()); }
SEER_RT_EXPORT void __tsan_unaligned_write8(void* a) { Access(W, a, 8, SEER_RT_CALLER_PC()); }
SEER_RT_EXPORT void __tsan_unaligned_write16(void* a) { Access(W, a, 16, SEER_RT_CALLER_PC()); }

// Code built for the sanitizers calls these instead of dereferencing.
SEER_RT_EXPORT uint16_t __sanitizer_unaligned_load16(const void* a) {
  return UnalignedLoad<uint16_t>(a, SEER_RT_CALLER_PC());
}
SEER_RT_EXPORT uint32_t __sanitizer_unaligned_load32(const void* a) {
  return UnalignedLoad<uint32_t>(a, SEER_RT_CALLER_PC());
}
SEER_RT_EXPORT uint64_t __sanitizer_unaligned_load64(const void* a) {
  return UnalignedLoad<uint64_t>(a, SEER_RT_CALLER_PC());
}
SEER_RT_EXPORT void __sanitizer_unaligned_store16(void* a, uint16_t v) { UnalignedStore(a, v, SEER_RT_CALLER_PC()); }
SEER_RT_EXPORT void __sanitizer_unaligned_store32(void* a, uint32_t v) { UnalignedStore(a, v, SEER_RT_CALLER_PC()); }
SEER_RT_EXPORT void __sanitizer_unaligned_store64(void* a, uint64_t v) { UnalignedStore(a, v, SEER_RT_CALLER_PC()); }

// The _pc variants (clang's -tsan-instrument-... options) pass the pc explicitly.
SEER_RT_EXPORT void __tsan_read1_pc(void* a, void* pc) { Access(R, a, 1, reinterpret_cast<uint64_t>(pc)); }
SEER_RT_EXPORT void __tsan_read2_pc(void* a, void* pc) { Access(R, a, 2, reinterpret_cast<uint64_t>(pc)); }
SEER_RT_EXPORT void __tsan_read4_pc(void* a, void* pc) { Access(R, a, 4, reinterpret_cast<uint64_t>(pc)); }
SEER_RT_EXPORT void __tsan_read8_pc(void* a, void* pc) { Access(R, a, 8, reinterpret_cast<uint64_t>(pc)); }
SEER_RT_EXPORT void __tsan_read16_pc(void* a, void* pc) { Access(R, a, 16, reinterpret_cast<uint64_t>(pc)); }
SEER_RT_EXPORT void __tsan_write1_pc(void* a, void* pc) { Access(W, a, 1, reinterpret_cast<uint64_t>(pc)); }
SEER_RT_EXPORT void __tsan_write2_pc(void* a, void* pc) { Access(W, a, 2, reinterpret_cast<uint64_t>(pc)); }
SEER_RT_EXPORT void __tsan_write4_pc(void* a, void* pc) { Access(W, a, 4, reinterpret_cast<uint64_t>(pc)); }
SEER_RT_EXPORT void __tsan_write8_pc(void* a, void* pc) { Access(W, a, 8, reinterpret_cast<uint64_t>(pc)); }
SEER_RT_EXPORT void __tsan_write16_pc(void* a, void* pc) { Access(W, a, 16, reinterpret_cast<uint64_t>(pc)); }

SEER_RT_EXPORT void __tsan_read_range(void* a, unsigned long size) { Range(R, a, size, SEER_RT_CALLER_PC()); }
SEER_RT_EXPORT void __tsan_write_range(void* a, unsigned long size) { Range(W, a, size, SEER_RT_CALLER_PC()); }
SEER_RT_EXPORT void __tsan_read_range_pc(void* a, unsigned long size, void* pc) {
  Range(R, a, size, reinterpret_cast<uint64_t>(pc));
}
SEER_RT_EXPORT void __tsan_write_range_pc(void* a, unsigned long size, void* pc) {
  Range(W, a, size, reinterpret_cast<uint64_t>(pc));
}

// object = a pc inside the entered function (our return address), pc = the call site.
SEER_RT_EXPORT void __tsan_func_entry(void* call_pc) {
  PutShortFast(K(seer::EventKind::kFuncEntry), 0, SEER_RT_CALLER_PC(), reinterpret_cast<uint64_t>(call_pc));
}
SEER_RT_EXPORT void __tsan_func_exit() { PutShortFast(K(seer::EventKind::kFuncExit), 0, 0, SEER_RT_CALLER_PC()); }

// A constructor or destructor resetting the vtable pointer to the value it
// already has is not a write (ThreadSanitizer's rule; it avoids reports on
// objects destroyed while another thread still calls their virtual methods).
SEER_RT_EXPORT void __tsan_vptr_update(void** vptr_p, void* new_val) {
  if (*vptr_p != new_val) Access(W, vptr_p, sizeof(void*), SEER_RT_CALLER_PC());
}
SEER_RT_EXPORT void __tsan_vptr_read(void** vptr_p) { Access(R, vptr_p, sizeof(void*), SEER_RT_CALLER_PC()); }
