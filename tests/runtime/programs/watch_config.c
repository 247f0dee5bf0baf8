// A service-like program for seer record --watch (tests/runtime/watch_test.cc,
// bench/watch/detection.sh): a configuration word that one thread rewrites
// now and then while two workers read it for every request, for DURATION_MS
// (argv[1], default 1000). How the word is shared is the build's:
//   default             plain loads and stores: a data race
//   -DWATCH_LOCKED      read and written under a lock: race-free
//   -DWATCH_ATOMIC      C11 relaxed atomic loads and stores: race-free (and,
//                       without seer-cc, compiled to the same plain moves)
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#if defined(WATCH_ATOMIC)
#include <stdatomic.h>
static _Atomic long config;
#define READ_CONFIG() atomic_load_explicit(&config, memory_order_relaxed)
#define WRITE_CONFIG(v) atomic_store_explicit(&config, (v), memory_order_relaxed)
#elif defined(WATCH_LOCKED)
static long config;
static pthread_mutex_t config_lock = PTHREAD_MUTEX_INITIALIZER;
static long ReadLocked(void) {
  pthread_mutex_lock(&config_lock);
  const long v = config;
  pthread_mutex_unlock(&config_lock);
  return v;
}
#define READ_CONFIG() ReadLocked()
#define WRITE_CONFIG(v)                 \
  do {                                  \
    pthread_mutex_lock(&config_lock);   \
    config = (v);                       \
    pthread_mutex_unlock(&config_lock); \
  } while (0)
#else
static long config;
#define READ_CONFIG() (*(volatile long*)&config)
#define WRITE_CONFIG(v) (*(volatile long*)& config = (v))
#endif

static long duration_ms = 1000;

static double Now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

// A request: some arithmetic steered by the configuration.
static long Serve(long request) {
  const long level = READ_CONFIG();
  long h = request;
  for (int i = 0; i < 64; ++i) h = h * 31 + (level & 7);
  return h;
}

// Each thread watches the clock itself: a stop flag would be one more shared word.
static void* Worker(void* arg) {
  long served = 0, sum = 0;
  (void)arg;
  const double end = Now() + duration_ms / 1000.0;
  while (Now() < end) {
    for (int i = 0; i < 1024; ++i) sum += Serve(served++);
  }
  return (void*)(served ^ (sum & 1));
}

// Rewrites the configuration every 50 microseconds.
static void* Control(void* arg) {
  (void)arg;
  const double end = Now() + duration_ms / 1000.0;
  long generation = 0;
  while (Now() < end) {
    WRITE_CONFIG(++generation);
    struct timespec pause = {0, 50000};
    nanosleep(&pause, NULL);
  }
  return (void*)generation;
}

int main(int argc, char** argv) {
  if (argc > 1) duration_ms = atol(argv[1]);
  pthread_t workers[2], control;
  for (int i = 0; i < 2; ++i) pthread_create(&workers[i], NULL, Worker, NULL);
  pthread_create(&control, NULL, Control, NULL);
  void* generations = NULL;
  pthread_join(control, &generations);
  long served = 0;
  for (int i = 0; i < 2; ++i) {
    void* r = NULL;
    pthread_join(workers[i], &r);
    served += (long)r;
  }
  printf("requests=%ld config=%ld\n", served, (long)generations);
  return 0;
}
