// The creation and destruction of synchronisation objects (sync_object_access.h):
// pthread_{mutex,rwlock,spin,cond,barrier}_{init,destroy}, sem_init, sem_destroy.
// Each writes the object's first byte in the in-process mode; the uses that read
// it are recorded by their interposers (interpose_pthread.cc). An init is
// written after the real call succeeded (the object exists from then on), a
// destroy before the real call, whatever it returns (ThreadSanitizer counts a
// destroy of a busy mutex too). A C++ std::mutex has a trivial destructor in
// libstdc++ (no pthread call): its `delete` is the free of its block, which
// already writes every byte of it; std::condition_variable's and
// std::shared_mutex's destructors call the destroy functions below.
// Under `seer fuzz`, and when synchronisation is not recorded in-process, each
// forwards.
#include <pthread.h>
#include <semaphore.h>

#include "runtime/fuzz_scheduler.h"
#include "runtime/real_function.h"
#include "runtime/rt_state.h"
#include "runtime/sync_object_access.h"

namespace seer::rt {
namespace {

RealFunction<int (*)(pthread_mutex_t*, const pthread_mutexattr_t*)> real_mutex_init("pthread_mutex_init");
RealFunction<int (*)(pthread_mutex_t*)> real_mutex_destroy("pthread_mutex_destroy");
RealFunction<int (*)(pthread_rwlock_t*, const pthread_rwlockattr_t*)> real_rwlock_init("pthread_rwlock_init");
RealFunction<int (*)(pthread_rwlock_t*)> real_rwlock_destroy("pthread_rwlock_destroy");
RealFunction<int (*)(pthread_spinlock_t*, int)> real_spin_init("pthread_spin_init");
RealFunction<int (*)(pthread_spinlock_t*)> real_spin_destroy("pthread_spin_destroy");
RealFunction<int (*)(pthread_cond_t*, const pthread_condattr_t*)> real_cond_init("pthread_cond_init", "GLIBC_2.3.2");
RealFunction<int (*)(pthread_cond_t*)> real_cond_destroy("pthread_cond_destroy", "GLIBC_2.3.2");
RealFunction<int (*)(pthread_barrier_t*, const pthread_barrierattr_t*, unsigned)> real_barrier_init(
    "pthread_barrier_init");
RealFunction<int (*)(pthread_barrier_t*)> real_barrier_destroy("pthread_barrier_destroy");
RealFunction<int (*)(sem_t*, int, unsigned)> real_sem_init("sem_init");
RealFunction<int (*)(sem_t*)> real_sem_destroy("sem_destroy");

// True when the call is only forwarded: under seer fuzz, or when the
// synchronisation is not recorded in-process (ebpf mode, watch only).
SEER_RT_INLINE bool Forward() { return FuzzOn() || ForwardSyncCall(); }

// An init that returned `rc`: the object exists when it returned 0.
SEER_RT_INLINE int Created(int rc, const volatile void* object, uint64_t pc) {
  if (rc == 0) SyncObjectWritten(object, pc);
  return rc;
}

}  // namespace
}  // namespace seer::rt

using namespace seer::rt;

#pragma GCC visibility push(default)
extern "C" {

int pthread_mutex_init(pthread_mutex_t* m, const pthread_mutexattr_t* attr) noexcept {
  if (Forward()) return real_mutex_init.get()(m, attr);
  return Created(real_mutex_init.get()(m, attr), m, SEER_RT_CALLER_PC());
}
int pthread_mutex_destroy(pthread_mutex_t* m) noexcept {
  if (Forward()) return real_mutex_destroy.get()(m);
  SyncObjectWritten(m, SEER_RT_CALLER_PC());
  return real_mutex_destroy.get()(m);
}

int pthread_rwlock_init(pthread_rwlock_t* l, const pthread_rwlockattr_t* attr) noexcept {
  if (Forward()) return real_rwlock_init.get()(l, attr);
  return Created(real_rwlock_init.get()(l, attr), l, SEER_RT_CALLER_PC());
}
int pthread_rwlock_destroy(pthread_rwlock_t* l) noexcept {
  if (Forward()) return real_rwlock_destroy.get()(l);
  SyncObjectWritten(l, SEER_RT_CALLER_PC());
  return real_rwlock_destroy.get()(l);
}

int pthread_spin_init(pthread_spinlock_t* l, int shared) noexcept {
  if (Forward()) return real_spin_init.get()(l, shared);
  return Created(real_spin_init.get()(l, shared), l, SEER_RT_CALLER_PC());
}
int pthread_spin_destroy(pthread_spinlock_t* l) noexcept {
  if (Forward()) return real_spin_destroy.get()(l);
  SyncObjectWritten(l, SEER_RT_CALLER_PC());
  return real_spin_destroy.get()(l);
}

int pthread_cond_init(pthread_cond_t* c, const pthread_condattr_t* attr) noexcept {
  if (Forward()) return real_cond_init.get()(c, attr);
  return Created(real_cond_init.get()(c, attr), c, SEER_RT_CALLER_PC());
}
int pthread_cond_destroy(pthread_cond_t* c) noexcept {
  if (Forward()) return real_cond_destroy.get()(c);
  SyncObjectWritten(c, SEER_RT_CALLER_PC());
  return real_cond_destroy.get()(c);
}

int pthread_barrier_init(pthread_barrier_t* b, const pthread_barrierattr_t* attr, unsigned count) noexcept {
  if (Forward()) return real_barrier_init.get()(b, attr, count);
  return Created(real_barrier_init.get()(b, attr, count), b, SEER_RT_CALLER_PC());
}
int pthread_barrier_destroy(pthread_barrier_t* b) noexcept {
  if (Forward()) return real_barrier_destroy.get()(b);
  SyncObjectWritten(b, SEER_RT_CALLER_PC());
  return real_barrier_destroy.get()(b);
}

int sem_init(sem_t* s, int shared, unsigned value) noexcept {
  if (Forward()) return real_sem_init.get()(s, shared, value);
  return Created(real_sem_init.get()(s, shared, value), s, SEER_RT_CALLER_PC());
}
int sem_destroy(sem_t* s) noexcept {
  if (Forward()) return real_sem_destroy.get()(s);
  SyncObjectWritten(s, SEER_RT_CALLER_PC());
  return real_sem_destroy.get()(s);
}

}  // extern "C"
#pragma GCC visibility pop
