/* Multi-threaded scenarios, chosen by argv[2]; argv[1] is the manifest file.
     mutex       4 threads x 500 increments of `counter` under one mutex
     mutex_lives mutexes that begin again at one address, a copy of one in use
                 beside it, a failed unlock, more mutexes than mutex domains
     sync        cond var hand-off, rwlock, semaphore, barrier, spinlock, once
     exit        a thread writes `counter` 300 times, then calls exit(3)
     thread_exit 2 threads write 300 times each, then call pthread_exit
     segv        300 writes, then a write through a null pointer
     abort       300 writes, then abort()
     loop N      N writes of `counter`, single thread (ring overflow)
     sleep       the mutex scenario, then half a second asleep */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdlib.h>
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

/* --- mutex_lives: where the runtime's per-mutex order counters (kept inside
   pthread_mutex_t) must start again, or must not be shared --- */
struct guarded {
  pthread_mutex_t m;
  long value;
};
pthread_mutex_t errorcheck;
enum { kManyMutexes = 40000 }; /* more than the runtime's 32768 mutex domains */
pthread_mutex_t* many;

static void* guarded_worker(void* arg) {
  struct guarded* g = arg;
  for (int i = 0; i < 200; ++i) {
    pthread_mutex_lock(&g->m);
    bump(&g->value);
    pthread_mutex_unlock(&g->m);
  }
  return NULL;
}

/* Two threads on each of `a` and (if not null) `b`, all at once. */
static void guarded_workers(struct guarded* a, struct guarded* b) {
  pthread_t t[4];
  int n = 0;
  for (int i = 0; i < 2; ++i) pthread_create(&t[n++], NULL, guarded_worker, a);
  for (int i = 0; b != NULL && i < 2; ++i) pthread_create(&t[n++], NULL, guarded_worker, b);
  for (int i = 0; i < n; ++i) pthread_join(t[i], NULL);
}

static void* many_worker(void* arg) {
  for (int i = 0; i < kManyMutexes; ++i) {
    pthread_mutex_lock(&many[i]);
    pthread_mutex_unlock(&many[i]);
  }
  return arg;
}

static void* errorcheck_intruder(void* arg) {
  /* Main holds it: EPERM, and no release. */
  return (void*)(intptr_t)(pthread_mutex_unlock(&errorcheck) == EPERM);
}

static int run_mutex_lives(void) {
  int ok = 1;
  /* Destroyed and freed, three times: the next block (often at the same
     address) holds a new mutex. */
  for (int life = 0; life < 3; ++life) {
    struct guarded* g = malloc(sizeof *g);
    pthread_mutex_init(&g->m, NULL);
    g->value = 0;
    if (life == 0) manifest_put("first_life", &g->m);
    guarded_workers(g, NULL);
    ok &= g->value == 400;
    pthread_mutex_destroy(&g->m);
    free(g);
  }
  /* Used, then zeroed in place (a static initializer again), then used. */
  struct guarded* z = calloc(1, sizeof *z);
  manifest_put("zeroed", &z->m);
  guarded_workers(z, NULL);
  memset(&z->m, 0, sizeof z->m);
  guarded_workers(z, NULL);
  /* A copy of the used mutex, used beside it. */
  struct guarded* c = calloc(1, sizeof *c);
  manifest_put("copy", &c->m);
  memcpy(&c->m, &z->m, sizeof c->m);
  guarded_workers(z, c);
  ok &= z->value == 1200 && c->value == 400;
  free(c);
  free(z);
  /* An error-checking mutex unlocked by a thread that does not hold it. */
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ERRORCHECK);
  pthread_mutex_init(&errorcheck, &attr);
  manifest_put("errorcheck", &errorcheck);
  pthread_mutex_lock(&errorcheck);
  pthread_t intruder;
  void* refused = NULL;
  pthread_create(&intruder, NULL, errorcheck_intruder, NULL);
  pthread_join(intruder, &refused);
  ok &= refused != NULL;
  pthread_mutex_unlock(&errorcheck);
  /* More mutexes than mutex domains: the last ones use lock shards. */
  many = calloc(kManyMutexes, sizeof *many);
  manifest_put("many_first", &many[0]);
  manifest_put("many_last", &many[kManyMutexes - 1]);
  pthread_t t[2];
  for (int i = 0; i < 2; ++i) pthread_create(&t[i], NULL, many_worker, NULL);
  for (int i = 0; i < 2; ++i) pthread_join(t[i], NULL);
  free(many);
  return ok ? 0 : 1;
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
  if (strcmp(mode, "mutex_lives") == 0) return run_mutex_lives();
  if (strcmp(mode, "sync") == 0) return run_sync();
  if (strcmp(mode, "exit") == 0) return run_exit();
  if (strcmp(mode, "thread_exit") == 0) return run_thread_exit();
  if (strcmp(mode, "segv") == 0 || strcmp(mode, "abort") == 0) {
    for (long i = 0; i < 300; ++i) put(&counter, i);
    if (mode[0] == 'a') abort();
    *null_pointer = 1;
    return 0;
  }
  if (strcmp(mode, "until_signal") == 0) { /* writes until a signal ends it */
    for (long i = 0;; ++i) {
      put(&counter, i);
      if (i % 64 == 0) usleep(100);
    }
  }
  if (strcmp(mode, "sleep") == 0) {
    const int rc = run_mutex();
    usleep(500 * 1000);
    return rc;
  }
  if (strcmp(mode, "loop") == 0 && argc > 3) {
    const long n = atol(argv[3]);
    for (long i = 0; i < n; ++i) put(&counter, i);
    return 0;
  }
  return 2;
}
