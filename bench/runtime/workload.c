/* The access-heavy workloads of the runtime benchmark, two shapes:
   - shared (the default): threads updating shared heap data under striped
     locks. Each operation locks the stripe of a block of 8 counters and reads
     and writes every counter of the block (16 accesses per lock pair).
   - private: each operation takes its thread's own lock and reads and writes
     64 words of heap memory only that thread touches (128 accesses per lock
     pair): the shape of a program whose threads mostly work on their own data.
   Usage: workload THREADS OPS_PER_THREAD [shared|private]. Prints a checksum. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kCounters = 1 << 16, kBlock = 8, kStripes = 64, kPrivateWords = 64 };

static uint64_t* counters;
static pthread_mutex_t stripes[kStripes];
static long ops_per_thread;
/* Each thread's private block, published here so that the compiler must load
   and store it around every lock pair rather than keep it in registers. */
static uint64_t* privates[64];
static pthread_mutex_t private_locks[64];

static void* worker(void* arg) {
  uint64_t x = (uint64_t)(uintptr_t)arg * 0x9E3779B97F4A7C15ull + 1;
  for (long op = 0; op < ops_per_thread; ++op) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    const uint64_t block = (x % (kCounters / kBlock)) * kBlock;
    pthread_mutex_t* m = &stripes[(block / kBlock) % kStripes];
    pthread_mutex_lock(m);
    for (int i = 0; i < kBlock; ++i) counters[block + i] += (uint64_t)i + 1;
    pthread_mutex_unlock(m);
  }
  return NULL;
}

static void* private_worker(void* arg) {
  const int self = (int)(uintptr_t)arg - 1;
  uint64_t* mine = privates[self];
  pthread_mutex_t* m = &private_locks[self];
  for (long op = 0; op < ops_per_thread; ++op) {
    pthread_mutex_lock(m);
    for (int i = 0; i < kPrivateWords; ++i) mine[i] += (uint64_t)i + 1;
    pthread_mutex_unlock(m);
  }
  return NULL;
}

int main(int argc, char** argv) {
  const int threads = argc > 1 ? atoi(argv[1]) : 2;
  ops_per_thread = argc > 2 ? atol(argv[2]) : 1000000;
  const char* shape = argc > 3 ? argv[3] : "shared";
  const int private_shape = strcmp(shape, "private") == 0;
  if (threads < 1 || threads > 64 || ops_per_thread < 1 || (!private_shape && strcmp(shape, "shared") != 0)) {
    fprintf(stderr, "usage: workload THREADS OPS_PER_THREAD [shared|private]\n");
    return 2;
  }
  if (private_shape) {
    for (int i = 0; i < threads; ++i) {
      privates[i] = calloc(kPrivateWords, sizeof(uint64_t));
      pthread_mutex_init(&private_locks[i], NULL);
    }
    pthread_t t[64];
    for (int i = 0; i < threads; ++i) pthread_create(&t[i], NULL, private_worker, (void*)(uintptr_t)(i + 1));
    for (int i = 0; i < threads; ++i) pthread_join(t[i], NULL);
    uint64_t sum = 0;
    for (int i = 0; i < threads; ++i) {
      for (int j = 0; j < kPrivateWords; ++j) sum += privates[i][j];
      free(privates[i]);
    }
    printf("checksum %llu\n", (unsigned long long)sum);
    /* Each word j of each thread gained (j + 1) per operation: sum of 1..64 = 2080. */
    return sum == (uint64_t)threads * (uint64_t)ops_per_thread * 2080 ? 0 : 1;
  }
  counters = calloc(kCounters, sizeof *counters);
  for (int i = 0; i < kStripes; ++i) pthread_mutex_init(&stripes[i], NULL);
  pthread_t t[64];
  for (int i = 0; i < threads; ++i) pthread_create(&t[i], NULL, worker, (void*)(uintptr_t)(i + 1));
  for (int i = 0; i < threads; ++i) pthread_join(t[i], NULL);
  uint64_t sum = 0;
  for (int i = 0; i < kCounters; ++i) sum += counters[i];
  printf("checksum %llu\n", (unsigned long long)sum);
  free(counters);
  return sum == (uint64_t)threads * (uint64_t)ops_per_thread * 36 ? 0 : 1;
}
