// What the dynamic annotations (annotations.cc: ThreadSanitizer's, Helgrind's
// and DRD's Annotate* functions) share with the other interposers: the lock
// events of pthread's rwlocks, the benign ranges a free ends, and whether a
// thread ignores its writes (for the write of an allocation and a free).
#pragma once

#include <cstdint>

#include "runtime/rt_state.h"

namespace seer::rt {

// A lock the program says it acquired (after the acquisition) or is releasing
// (before the release), recorded as a rwlock's acquire or release in `mode`
// (LockMode), with the hold-time bookkeeping of interpose_pthread.cc. `how`:
// AcquireHow (a successful trylock is kTry).
void RecordLockAcquired(const volatile void* lock, uint8_t mode, uint64_t pc, AcquireHow how = AcquireHow::kBlocking);
void RecordLockReleasing(const volatile void* lock, uint8_t mode, uint64_t pc);

// The memory [addr, addr + size) is freed or new: the benign ranges inside it
// end (a later object there races as any other), and ranges that overlap it
// shrink to what lies outside it.
void ForgetBenignRanges(uint64_t addr, uint64_t size);

// True while the calling thread ignores its writes (AnnotateIgnoreWritesBegin,
// or the lock code of a __tsan_mutex_pre_* span). Look at AccessFiltersOn()
// first: it is false whenever no thread ignores anything.
bool IgnoringWrites();

// A signal handler records what it does whatever the code it interrupted
// ignores, as ThreadSanitizer clears a thread's ignores while a handler runs:
// SuspendIgnores() clears them and returns them, RestoreIgnores() puts them
// back when the handler ends. Async-signal-safe.
ThreadIgnores SuspendIgnores();
void RestoreIgnores(const ThreadIgnores& ignores);

}  // namespace seer::rt
