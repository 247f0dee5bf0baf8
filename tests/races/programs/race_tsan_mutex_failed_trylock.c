/* A lock of the program's own, described with ThreadSanitizer's interface, on
   a sequentially consistent exchange (ThreadSanitizer's custom_mutex1.cpp). A
   worker increments under the lock, then takes it again and holds it; main's
   trylock fails, and main increments without the lock. By C11's rules the
   failed trylock's exchange reads the worker's second exchange and
   synchronises with it, but a failed trylock is no acquire of the lock: the
   lock code's atomics are the lock's own business (ignored between
   __tsan_mutex_pre_* and post_*, as ThreadSanitizer ignores them), and the two
   increments race. The hand-shakes are relaxed atomics, which order nothing. */
// seer-relaxed-race: a main's increment follows its relaxed load of `held`, which saw the store that follows the
// worker's increment: no sequentially consistent reordering puts them side by side
// seer-fuzz-unreachable: a the worker's increment comes before the lock main's trylock finds taken: no schedule of
// the lock's users holds both threads at the increments at once
#include <pthread.h>
#include <sanitizer/tsan_interface.h>

struct spinlock {
  int word;
};

struct spinlock lock;
long data;
int held, tried;  // relaxed atomic accesses only

static void Lock(struct spinlock* l) {
  __tsan_mutex_pre_lock(l, 0);
  while (__atomic_exchange_n(&l->word, 1, __ATOMIC_SEQ_CST) != 0) {
  }
  __tsan_mutex_post_lock(l, 0, 0);
}

static int TryLock(struct spinlock* l) {
  __tsan_mutex_pre_lock(l, __tsan_mutex_try_lock);
  const int ok = __atomic_exchange_n(&l->word, 1, __ATOMIC_SEQ_CST) == 0;
  __tsan_mutex_post_lock(l, ok ? __tsan_mutex_try_lock : __tsan_mutex_try_lock | __tsan_mutex_try_lock_failed, 0);
  return ok;
}

static void Unlock(struct spinlock* l) {
  __tsan_mutex_pre_unlock(l, 0);
  __atomic_store_n(&l->word, 0, __ATOMIC_SEQ_CST);
  __tsan_mutex_post_unlock(l, 0);
}

static void* worker(void* arg) {
  (void)arg;
  Lock(&lock);
  data++;  // RACE(a)
  Unlock(&lock);
  Lock(&lock);
  __atomic_store_n(&held, 1, __ATOMIC_RELAXED);
  while (!__atomic_load_n(&tried, __ATOMIC_RELAXED)) {
  }
  Unlock(&lock);
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  while (!__atomic_load_n(&held, __ATOMIC_RELAXED)) {
  }
  const int got = TryLock(&lock);
  if (!got) data++;  // RACE(a)
  __atomic_store_n(&tried, 1, __ATOMIC_RELAXED);
  pthread_join(t, NULL);
  return got ? 2 : 0;
}
