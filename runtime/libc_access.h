// The memory libc reads or writes on the program's behalf (memcpy's ranges,
// the buffer of a read() or write()), recorded as the program's accesses: one
// range record per call, at the program's call site. Without a recording the
// ranges are still scheduling points of `seer fuzz`.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/fuzz_scheduler.h"
#include "runtime/rt_state.h"

namespace seer::rt {

SEER_RT_INLINE void RangeRead(const void* p, size_t n, uint64_t pc) {
  if (ThreadState* ts = RecordingThread())
    PutRange(ts, EventKind::kRead, reinterpret_cast<uint64_t>(p), n, pc);
  else
    FuzzAccess(reinterpret_cast<uint64_t>(p), n, /*write=*/false, pc);
}

SEER_RT_INLINE void RangeWrite(const void* p, size_t n, uint64_t pc) {
  if (ThreadState* ts = RecordingThread())
    PutRange(ts, EventKind::kWrite, reinterpret_cast<uint64_t>(p), n, pc);
  else
    FuzzAccess(reinterpret_cast<uint64_t>(p), n, /*write=*/true, pc);
}

}  // namespace seer::rt
