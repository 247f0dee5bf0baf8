// Synchronisation objects as memory, as ThreadSanitizer models them: creating
// or destroying a mutex, rwlock, spin lock, condition variable, barrier or
// semaphore writes its first byte, every use of it reads that byte, so that a
// destroy (or a re-init) racing with another thread's lock, wait or signal is
// a race on the object itself. Recorded with the in-process synchronisation
// only (the interposers' `inproc` path): in `--sync=ebpf` mode the wrappers
// forward, and nothing here is recorded.
#pragma once

#include <cstdint>

#include "runtime/rt_state.h"

namespace seer::rt {

// A use of the object: a read of its first byte. Recorded before the event
// that acquires or releases through the object: before the acquire of a lock
// and the wait of a semaphore (as ThreadSanitizer's lock reads the mutex
// before it acquires: a lock is not ordered after the init or destroy of
// another thread by the very release it acquires, so a thread that takes a
// mutex another thread initialised, with nothing but that mutex between them,
// races with the init), and before the release of an unlock, a signal, a post,
// a barrier arrival or a cond wait's begin.
SEER_RT_INLINE void SyncObjectUsed(const volatile void* object, uint64_t pc) {
  if (ThreadState* ts = RecordingThread()) PutRange(ts, EventKind::kRead, reinterpret_cast<uint64_t>(object), 1, pc);
}

// The object is created (init) or ends (destroy): a write of its first byte.
SEER_RT_INLINE void SyncObjectWritten(const volatile void* object, uint64_t pc) {
  if (ThreadState* ts = RecordingThread()) PutRange(ts, EventKind::kWrite, reinterpret_cast<uint64_t>(object), 1, pc);
}

}  // namespace seer::rt
