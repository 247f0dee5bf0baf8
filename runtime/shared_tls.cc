// The table of threads that share a TLS block (shared_tls.h) and the slot
// lookup every slow path goes through (rt_state.h, CurrentSlot).
#include "runtime/shared_tls.h"

#include <unistd.h>

namespace seer::rt {
namespace {

SharedTlsThread shared_threads[kSharedTlsThreads];

}  // namespace

// glibc's wrapper, not syscall(): that one is the runtime's interposer.
int32_t KernelTid() { return static_cast<int32_t>(gettid()); }

SharedTlsThread* FindSharedTlsThread(int32_t tid) {
  for (SharedTlsThread& e : shared_threads)
    if (e.tid.load(std::memory_order_acquire) == tid) return &e;
  return nullptr;
}

SharedTlsThread* AddSharedTlsThread(int32_t tid) {
  for (SharedTlsThread& e : shared_threads) {
    int32_t free_tid = 0;
    if (e.tid.load(std::memory_order_relaxed) != 0 ||
        !e.tid.compare_exchange_strong(free_tid, -1, std::memory_order_acquire))
      continue;
    e.state = nullptr;
    e.vars = {};
    e.tid.store(tid, std::memory_order_release);
    return &e;
  }
  return nullptr;
}

void RemoveSharedTlsThread(SharedTlsThread* e) {
  e->state = nullptr;
  e->tid.store(0, std::memory_order_release);
}

bool ShareTlsBlock() {
  if (tls_shared) return true;
  const int32_t tid = KernelTid();
  SharedTlsThread* e = AddSharedTlsThread(tid);
  if (e == nullptr) {
    // Not one of them could be told apart: none records.
    tls_state = nullptr;
    tls_vars.finished = true;
    return false;
  }
  e->state = tls_state;
  e->vars = tls_vars;
  tls_owner_tid = tid;
  // The TLS slot is cleared before the flag is set: a signal handler in
  // between finds no state in the slot (and records nothing), never the
  // state of the code it interrupted.
  tls_state = nullptr;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  __atomic_store_n(&tls_shared, true, __ATOMIC_RELAXED);
  std::atomic_signal_fence(std::memory_order_seq_cst);
  tls_vars = {};
  return true;
}

ThreadSlot CurrentSlot() {
  if (__builtin_expect(!tls_shared, 1)) return {&tls_state, &tls_vars};
  const int32_t tid = KernelTid();
  SharedTlsThread* e = FindSharedTlsThread(tid);
  if (e == nullptr) e = AddSharedTlsThread(tid);
  if (e == nullptr) return {nullptr, nullptr};
  return {&e->state, &e->vars};
}

}  // namespace seer::rt
