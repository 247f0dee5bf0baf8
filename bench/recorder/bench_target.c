/* Workloads for bench/record_bench.sh.
 *   bench_target locks THREADS PAIRS   each thread: PAIRS lock/unlock pairs on one shared mutex
 *   bench_target compute ITERS         arithmetic loop, one lock/unlock per million iterations
 *   bench_target rate THREADS SECONDS  lock/unlock pairs as fast as possible for SECONDS
 * Prints "pairs=N seconds=S" on stdout. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static long pairs_per_thread;
static double run_seconds;
static long total_pairs;
static volatile unsigned long sink;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void* locks(void* arg) {
  (void)arg;
  for (long i = 0; i < pairs_per_thread; i++) {
    pthread_mutex_lock(&mu);
    sink++;
    pthread_mutex_unlock(&mu);
  }
  return 0;
}

static void* rate(void* arg) {
  (void)arg;
  double end = now() + run_seconds;
  long n = 0;
  while (now() < end) {
    for (int i = 0; i < 100; i++) {
      pthread_mutex_lock(&mu);
      sink++;
      pthread_mutex_unlock(&mu);
    }
    n += 100;
  }
  __atomic_fetch_add(&total_pairs, n, __ATOMIC_RELAXED);
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  double start = now();
  if (strcmp(argv[1], "compute") == 0) {
    long iters = atol(argv[2]);
    unsigned long x = 1;
    for (long i = 0; i < iters; i++) {
      x = x * 6364136223846793005ul + 1442695040888963407ul;
      if (i % 1000000 == 0) {
        pthread_mutex_lock(&mu);
        sink += x;
        pthread_mutex_unlock(&mu);
        total_pairs++;
      }
    }
    sink += x;
  } else {
    if (argc < 4) return 2;
    int threads = atoi(argv[2]);
    int is_rate = strcmp(argv[1], "rate") == 0;
    pairs_per_thread = atol(argv[3]);
    run_seconds = atof(argv[3]);
    pthread_t t[256];
    for (int i = 0; i < threads && i < 256; i++) pthread_create(&t[i], 0, is_rate ? rate : locks, 0);
    for (int i = 0; i < threads && i < 256; i++) pthread_join(t[i], 0);
    if (!is_rate) total_pairs = pairs_per_thread * threads;
  }
  printf("pairs=%ld seconds=%.3f\n", total_pairs, now() - start);
  return 0;
}
