/* Many short-lived threads, for the runtime's ring reuse (ring_reuse_test.sh).
   Usage: thread_churn MODE N [BATCH [PAUSE_MS]]
     joined N BATCH [PAUSE_MS]
                     N threads, created BATCH at a time and joined before the
                     next batch; each writes its slot of `slots` (the k-th
                     thread of every batch the same slot, ordered only by the
                     joins and forks in between) and bumps `counter` under a
                     mutex: no race; PAUSE_MS between batches (the
                     daemon test's long-running target)
     detached N      N threads, detached (half created so, half by
                     pthread_detach), each bumps `counter` under the mutex;
                     main waits on a condition variable for all: no race
     racy N          N detached threads one after the other, each writing
                     `racy` without a lock, nothing ordering one after the
                     previous (main synchronises with none of them): with two
                     rings, every one reuses the last one's ring, and
                     consecutive writers race on `racy`
   Exit code 0 when every thread ran. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t all_done = PTHREAD_COND_INITIALIZER;
long counter;
long slots[64];
long racy;

NOINLINE void put(long* p, long v) { *p = v; }

static void bump_counter(void) {
  pthread_mutex_lock(&lock);
  counter = counter + 1;
  pthread_cond_signal(&all_done);
  pthread_mutex_unlock(&lock);
}

static void* joined_worker(void* arg) {
  put(&slots[(long)arg % 64], (long)arg);
  bump_counter();
  return NULL;
}

static int run_joined(long n, long batch, long pause_ms) {
  pthread_t t[64];
  if (batch < 1 || batch > 64) return 2;
  const struct timespec pause = {pause_ms / 1000, (pause_ms % 1000) * 1000 * 1000};
  for (long done = 0; done < n;) {
    if (pause_ms > 0 && done > 0) nanosleep(&pause, NULL);
    long k = n - done < batch ? n - done : batch;
    for (long i = 0; i < k; ++i)
      if (pthread_create(&t[i], NULL, joined_worker, (void*)i) != 0) return 1;
    for (long i = 0; i < k; ++i) pthread_join(t[i], NULL);
    done += k;
  }
  return counter == n ? 0 : 1;
}

static void* detached_worker(void* arg) {
  (void)arg;
  bump_counter();
  return NULL;
}

static pthread_attr_t detached;

/* pthread_create, waiting a while when the system is out of threads or memory
 * for them (EAGAIN): detached threads made faster than they end pile up on a
 * loaded machine (the sanitizer pass runs two tests at once). Says why it
 * failed at last, not only the exit status. */
static int create(pthread_t* t, const pthread_attr_t* attr, void* (*fn)(void*), void* arg) {
  int rc = 0;
  for (int tries = 0; tries < 5000; ++tries) {
    rc = pthread_create(t, attr, fn, arg);
    if (rc != EAGAIN) break;
    struct timespec pause = {0, 2000000};
    nanosleep(&pause, NULL);
  }
  if (rc != 0) fprintf(stderr, "thread_churn: pthread_create: %s\n", strerror(rc));
  return rc;
}

static void init_detached(void) {
  pthread_attr_init(&detached);
  pthread_attr_setdetachstate(&detached, PTHREAD_CREATE_DETACHED);
}

static int run_detached(long n) {
  init_detached();
  for (long i = 0; i < n; ++i) {
    pthread_t t;
    if (i % 2 == 0) {
      if (create(&t, &detached, detached_worker, NULL) != 0) return 1;
    } else {
      if (create(&t, NULL, detached_worker, NULL) != 0) return 1;
      pthread_detach(t);
    }
  }
  pthread_mutex_lock(&lock);
  while (counter < n) pthread_cond_wait(&all_done, &lock);
  pthread_mutex_unlock(&lock);
  return 0;
}

static void* racy_worker(void* arg) {
  put(&racy, (long)arg); /* racy write */
  return NULL;
}

static void* last_worker(void* arg) { return arg; }

static int run_racy(long n) {
  init_detached();
  for (long i = 0; i < n; ++i) {
    pthread_t t;
    if (create(&t, &detached, racy_worker, (void*)(i + 1)) != 0) return 1;
  }
  /* Let the last writers end without synchronising with them (a join or a
     lock would order them before main's exit, not before each other: the
     races between them stay either way; this keeps the trace to the point). */
  struct timespec pause = {0, 100 * 1000 * 1000};
  nanosleep(&pause, NULL);
  pthread_t t;
  if (pthread_create(&t, NULL, last_worker, NULL) != 0) return 1;
  pthread_join(t, NULL);
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s joined|detached|racy N [BATCH [PAUSE_MS]]\n", argv[0]);
    return 2;
  }
  const long n = strtol(argv[2], NULL, 10);
  if (strcmp(argv[1], "joined") == 0)
    return run_joined(n, argc > 3 ? strtol(argv[3], NULL, 10) : 1, argc > 4 ? strtol(argv[4], NULL, 10) : 0);
  if (strcmp(argv[1], "detached") == 0) return run_detached(n);
  if (strcmp(argv[1], "racy") == 0) return run_racy(n);
  fprintf(stderr, "unknown mode %s\n", argv[1]);
  return 2;
}
