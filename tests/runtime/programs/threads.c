/* Multi-threaded scenarios, chosen by argv[2]; argv[1] is the manifest file.
     mutex       4 threads x 500 increments of `counter` under one mutex
     sync        cond var hand-off, rwlock, semaphore, barrier, spinlock, once
     exit        a thread writes `counter` 300 times, then calls exit(3)
     thread_exit 2 threads write 300 times each, then call pthread_exit
     segv        300 writes, then a write through a null pointer
     abort       300 writes, then abort()
     loop N      N writes of `counter`, single thread (ring overflow) */
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "manifest.h"

#define NOINLINE __attribute__((noinline))

pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
long counter;

NOINLINE void bump(long* p) { *p = *p + 1; }
NOINLINE void put(long* p, long v) { *p = v; }

static void* mutex_worker(void* arg) {
  for (int i = 0; i < 500; ++i) {
    pthread_mutex_lock(&lock);
    bump(&counter);
    pthread_mutex_unlock(&lock);
  }
  return arg;
}

static int run_mutex(void) {
  pthread_t t[4];
  for (int i = 0; i < 4; ++i) pthread_create(&t[i], NULL, mutex_worker, NULL);
  for (int i = 0; i < 4; ++i) pthread_join(t[i], NULL);
  return counter == 2000 ? 0 : 1;
}

/* --- sync: one of each primitive, a known number of times --- */
pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
int ready;
long handed;
pthread_rwlock_t rwlock = PTHREAD_RWLOCK_INITIALIZER;
sem_t sem;
pthread_barrier_t barrier;
pthread_spinlock_t spin;
pthread_once_t once = PTHREAD_ONCE_INIT;
long once_value;

static void init_once(void) { put(&once_value, 42); }

static void* sync_worker(void* arg) {
  /* Wait for the hand-off. */
  pthread_mutex_lock(&lock);
  while (!ready) pthread_cond_wait(&cond, &lock);
  bump(&handed);
  pthread_mutex_unlock(&lock);
  for (int i = 0; i < 10; ++i) {
    pthread_rwlock_rdlock(&rwlock);
    (void)counter;
    pthread_rwlock_unlock(&rwlock);
  }
  for (int i = 0; i < 5; ++i) sem_wait(&sem);
  for (int i = 0; i < 3; ++i) pthread_barrier_wait(&barrier);
  pthread_once(&once, init_once);
  return arg;
}

static int run_sync(void) {
  sem_init(&sem, 0, 0);
  pthread_barrier_init(&barrier, NULL, 2);
  pthread_spin_init(&spin, 0);
  pthread_t t;
  pthread_create(&t, NULL, sync_worker, NULL);
  put(&handed, 1);
  pthread_mutex_lock(&lock);
  ready = 1;
  pthread_cond_signal(&cond);
  pthread_mutex_unlock(&lock);
  for (int i = 0; i < 10; ++i) {
    pthread_rwlock_wrlock(&rwlock);
    bump(&counter);
    pthread_rwlock_unlock(&rwlock);
  }
  for (int i = 0; i < 5; ++i) sem_post(&sem);
  for (int i = 0; i < 3; ++i) pthread_barrier_wait(&barrier);
  for (int i = 0; i < 7; ++i) {
    pthread_spin_lock(&spin);
    bump(&counter);
    pthread_spin_unlock(&spin);
  }
  pthread_once(&once, init_once);
  pthread_join(t, NULL);
  return handed == 2 && once_value == 42 ? 0 : 1;
}

/* --- ends of a run --- */
static void* exiting_worker(void* arg) {
  for (long i = 0; i < 300; ++i) put(&counter, i);
  exit(3);
  return arg;
}

static int run_exit(void) {
  pthread_t t;
  pthread_create(&t, NULL, exiting_worker, NULL);
  pthread_join(t, NULL);
  return 0; /* not reached */
}

long per_thread[2];
static void* thread_exit_worker(void* arg) {
  long* slot = (long*)arg;
  for (long i = 0; i < 300; ++i) put(slot, i);
  pthread_exit(NULL);
}

static int run_thread_exit(void) {
  pthread_t t[2];
  for (int i = 0; i < 2; ++i) pthread_create(&t[i], NULL, thread_exit_worker, &per_thread[i]);
  for (int i = 0; i < 2; ++i) pthread_join(t[i], NULL);
  return 0;
}

long* volatile null_pointer;

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  manifest_open(argv[1]);
  manifest_put("lock", &lock);
  manifest_put("counter", &counter);
  manifest_put("cond", &cond);
  manifest_put("rwlock", &rwlock);
  manifest_put("sem", &sem);
  manifest_put("barrier", &barrier);
  manifest_put("spin", &spin);
  manifest_put("once", &once);
  manifest_put("per_thread0", &per_thread[0]);
  manifest_put("per_thread1", &per_thread[1]);
  const char* mode = argv[2];
  if (strcmp(mode, "mutex") == 0) return run_mutex();
  if (strcmp(mode, "sync") == 0) return run_sync();
  if (strcmp(mode, "exit") == 0) return run_exit();
  if (strcmp(mode, "thread_exit") == 0) return run_thread_exit();
  if (strcmp(mode, "segv") == 0 || strcmp(mode, "abort") == 0) {
    for (long i = 0; i < 300; ++i) put(&counter, i);
    if (mode[0] == 'a') abort();
    *null_pointer = 1;
    return 0;
  }
  if (strcmp(mode, "loop") == 0 && argc > 3) {
    const long n = atol(argv[3]);
    for (long i = 0; i < n; ++i) put(&counter, i);
    return 0;
  }
  return 2;
}
