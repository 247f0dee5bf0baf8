// Recording of allocation events, shared by the malloc interposers and the C++
// operator new/delete replacements (which live in a separate archive so that C
// programs do not need libstdc++).
#pragma once

#include <unistd.h>

#include "runtime/annotations.h"
#include "runtime/fuzz_scheduler.h"
#include "runtime/rt_state.h"

namespace seer::rt {

// Set while the calling thread is inside libc's pthread_create
// (interpose_pthread.cc): the blocks libc allocates there (the new thread's
// TLS vector, its stack) are libc's own, later freed by whichever thread
// trims glibc's stack cache under a lock the runtime does not see.
extern __thread bool tls_in_thread_create;

// `region` kHeap: the allocation writes the block (EventLowering);
// kDeclaredNew: the program only says the memory is new (AnnotateNewMemory),
// and libc's allocations inside pthread_create: fresh, not written, so that
// their free by another thread (ordered by libc's own locks) is no race.
SEER_RT_INLINE void RecordAlloc(const void* p, uint64_t size, uint64_t pc, AllocRegion region = AllocRegion::kHeap) {
  if (p == nullptr) return;
  if (__builtin_expect(tls_in_thread_create, 0) && region == AllocRegion::kHeap) region = AllocRegion::kDeclaredNew;
  if (ThreadState* ts = RecordingThread())
    PutOrdered(ts, EventKind::kAlloc, static_cast<uint8_t>(region), reinterpret_cast<uint64_t>(p), size, pc);
}

SEER_RT_INLINE void RecordFree(const void* p, uint64_t size, uint64_t pc) {
  if (p == nullptr) return;
  // The block's benign ranges end with it (annotations.cc).
  if (__builtin_expect(AccessFiltersOn(), 0)) ForgetBenignRanges(reinterpret_cast<uint64_t>(p), size);
  if (ThreadState* ts = RecordingThread())
    PutOrdered(ts, EventKind::kFree, 0, reinterpret_cast<uint64_t>(p), size, pc);
  else  // a free writes the whole block, for seer fuzz as for the engines
    FuzzAccess(reinterpret_cast<uint64_t>(p), size, /*write=*/true, pc);
}

}  // namespace seer::rt
