// Threads that share one TLS block: made by clone() with CLONE_VM and without
// CLONE_SETTLS, they run with the thread pointer of the thread that made them,
// so every __thread variable of the runtime (`tls_state` first) is one
// variable for all of them. Their per-thread state lives here instead, in a
// fixed table keyed by kernel tid (rt_state.h, ground rule 3). Lock-free and
// async-signal-safe; only the slow paths of such threads look here.
#pragma once

#include <atomic>
#include <cstdint>

#include "runtime/rt_state.h"

namespace seer::rt {

struct SharedTlsThread {
  std::atomic<int32_t> tid;  // 0: free; -1: being filled
  ThreadState* state;        // what `tls_state` is for a thread with a TLS block of its own
  ThreadVars vars;
};

// Threads sharing a TLS block that can record at once, across all blocks. A
// thread that finds the table full records nothing.
inline constexpr int kSharedTlsThreads = 256;

// The calling thread's kernel tid (a system call: glibc's cached tid is its
// TLS block owner's).
int32_t KernelTid();

// The entry of thread `tid`, or null.
SharedTlsThread* FindSharedTlsThread(int32_t tid);

// A new entry for thread `tid`, state null and vars zero, or null when the
// table is full.
SharedTlsThread* AddSharedTlsThread(int32_t tid);

// The thread of `e` has ended: its entry may be taken again.
void RemoveSharedTlsThread(SharedTlsThread* e);

// Makes the calling thread's TLS block shared (once per block; a later call
// does nothing): moves its state and vars into its entry and clears
// `tls_state`, so that from now on every hook in the block takes the slow
// path. False when the table is full: the thread then stops recording (it
// could not be told from the threads it is about to make).
bool ShareTlsBlock();

}  // namespace seer::rt
