/* Contention on purpose: main holds a mutex, a rwlock (write) and a spin lock
 * while the worker blocks on each in turn, then lets go; the worker then takes
 * the mutex once more with nobody holding it. The recorder test expects one
 * lock_wait per contended acquire (3) and none for the free one. */
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_spinlock_t spin;
static atomic_int step; /* the worker is about to block on lock number `step` */

static void Sleep(long ms) {
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&t, 0);
}

static void* worker(void* arg) {
  (void)arg;
  atomic_store(&step, 1);
  pthread_mutex_lock(&m);
  pthread_mutex_unlock(&m);
  atomic_store(&step, 2);
  pthread_rwlock_rdlock(&rw);
  pthread_rwlock_unlock(&rw);
  atomic_store(&step, 3);
  pthread_spin_lock(&spin);
  pthread_spin_unlock(&spin);
  atomic_store(&step, 4);
  pthread_mutex_lock(&m); /* free: no wait */
  pthread_mutex_unlock(&m);
  return 0;
}

/* Waits until the worker announced `n`, then gives it time to block. */
static void WaitForWorker(int n) {
  while (atomic_load(&step) < n) Sleep(1);
  Sleep(100);
}

int main(void) {
  pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE);
  pthread_mutex_lock(&m);
  pthread_rwlock_wrlock(&rw);
  pthread_spin_lock(&spin);
  pthread_t t;
  pthread_create(&t, 0, worker, 0);
  WaitForWorker(1);
  pthread_mutex_unlock(&m);
  WaitForWorker(2);
  pthread_rwlock_unlock(&rw);
  WaitForWorker(3);
  pthread_spin_unlock(&spin);
  pthread_join(t, 0);
  return 0;
}
