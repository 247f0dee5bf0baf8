/* A lock of the program's own, described with ThreadSanitizer's interface
   (<sanitizer/tsan_interface.h>, as abseil and folly describe theirs): a spin
   on a relaxed exchange, which orders nothing by C11's rules, so without the
   annotations the counter it guards races. The lock code's own plain counter
   of attempts, written between pre_lock and post_lock by every thread, is
   ignored as ThreadSanitizer ignores it. A result handed over through a
   relaxed flag is ordered by __tsan_release / __tsan_acquire. No race. */
// seer-expect: none
#include <pthread.h>
#include <sanitizer/tsan_interface.h>
#include <stdio.h>

struct spinlock {
  int word;
  int attempts;  // the lock's own statistics: plain, written by every thread
};

struct spinlock lock;
int counter;
int result;
int done;  // relaxed atomic accesses only

static void Lock(struct spinlock* l) {
  __tsan_mutex_pre_lock(l, 0);
  do l->attempts++;
  while (__atomic_exchange_n(&l->word, 1, __ATOMIC_RELAXED) != 0);
  __tsan_mutex_post_lock(l, 0, 0);
}

static int TryLock(struct spinlock* l) {
  __tsan_mutex_pre_lock(l, __tsan_mutex_try_lock);
  const int ok = __atomic_exchange_n(&l->word, 1, __ATOMIC_RELAXED) == 0;
  __tsan_mutex_post_lock(l, ok ? __tsan_mutex_try_lock : __tsan_mutex_try_lock_failed, 0);
  return ok;
}

static void Unlock(struct spinlock* l) {
  __tsan_mutex_pre_unlock(l, 0);
  __atomic_store_n(&l->word, 0, __ATOMIC_RELAXED);
  __tsan_mutex_post_unlock(l, 0);
}

/* Lock first: a thread writes the attempts before its first acquisition. */
static void* worker(void* arg) {
  (void)arg;
  for (int i = 0; i < 100; i++) {
    if (i % 2 == 1 && TryLock(&lock)) {
      counter++;
      Unlock(&lock);
      continue;
    }
    Lock(&lock);
    counter++;
    Unlock(&lock);
  }
  return NULL;
}

static void* producer(void* arg) {
  (void)arg;
  result = 42;
  __tsan_release(&result);
  __atomic_store_n(&done, 1, __ATOMIC_RELAXED);
  return NULL;
}

int main(void) {
  pthread_t t[3];
  pthread_create(&t[0], NULL, worker, NULL);
  pthread_create(&t[1], NULL, worker, NULL);
  pthread_create(&t[2], NULL, producer, NULL);
  while (!__atomic_load_n(&done, __ATOMIC_RELAXED)) {
  }
  __tsan_acquire(&result);
  printf("%d\n", result);
  for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
  printf("%d\n", counter);
  return counter == 200 ? 0 : 1;
}
