/* A lock described with ThreadSanitizer's interface (<sanitizer/tsan_interface.h>)
   guards a counter the worker increments; main reads it without the lock. The
   annotations make the spin a lock: they must not hide the unlocked read. */
#include <pthread.h>
#include <sanitizer/tsan_interface.h>
#include <stdio.h>

int word;
int counter;

static void Lock(void) {
  __tsan_mutex_pre_lock(&word, 0);
  while (__atomic_exchange_n(&word, 1, __ATOMIC_RELAXED) != 0) {
  }
  __tsan_mutex_post_lock(&word, 0, 0);
}

static void Unlock(void) {
  __tsan_mutex_pre_unlock(&word, 0);
  __atomic_store_n(&word, 0, __ATOMIC_RELAXED);
  __tsan_mutex_post_unlock(&word, 0);
}

static void* worker(void* arg) {
  (void)arg;
  Lock();
  counter++;  // RACE(a)
  Unlock();
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  printf("%d\n", counter);  // RACE(a)
  pthread_join(t, NULL);
  return 0;
}
