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
// kDeclaredNew: the program only says the memory is new (AnnotateNewMemory).
// So are, fresh but not written, libc's allocations inside pthread_create
// (their free by another thread is ordered by libc's own locks) and those of
// a thread that ignores its writes (AnnotateIgnoreWritesBegin: ThreadSanitizer
// then leaves the allocation's write out too).
SEER_RT_INLINE void RecordAlloc(const void* p, uint64_t size, uint64_t pc, AllocRegion region = AllocRegion::kHeap) {
  if (p == nullptr) return;
  if (region == AllocRegion::kHeap &&
      (__builtin_expect(tls_in_thread_create, 0) || (__builtin_expect(AccessFiltersOn(), 0) && IgnoringWrites())))
    region = AllocRegion::kDeclaredNew;
  if (ThreadState* ts = RecordingThread())
    PutOrdered(ts, EventKind::kAlloc, static_cast<uint8_t>(region), reinterpret_cast<uint64_t>(p), size, pc);
}

SEER_RT_INLINE void RecordFree(const void* p, uint64_t size, uint64_t pc) {
  if (p == nullptr) return;
  if (__builtin_expect(AccessFiltersOn(), 0)) {
    // The block's benign ranges end with it (annotations.cc).
    ForgetBenignRanges(reinterpret_cast<uint64_t>(p), size);
    // A free is a write of the block: not recorded while the thread ignores
    // its writes, as ThreadSanitizer leaves it out (the next allocation there
    // makes the memory fresh all the same).
    if (IgnoringWrites()) return;
  }
  if (ThreadState* ts = RecordingThread())
    PutOrdered(ts, EventKind::kFree, 0, reinterpret_cast<uint64_t>(p), size, pc);
  else  // a free writes the whole block, for seer fuzz as for the engines
    FuzzAccess(reinterpret_cast<uint64_t>(p), size, /*write=*/true, pc);
}

}  // namespace seer::rt
