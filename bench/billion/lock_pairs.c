/* The billion-event benchmark's recorded program: THREADS threads, each
   running OPS operations. An operation takes two mutexes in one global order
   (an outer stripe, then the thread's own lock), reads and writes four words of
   a shared block under them, and releases both: 2 acquires, 2 releases and 8
   accesses in the source, 18 events as recorded (billion.sh). All shared words are accessed under their stripe, so
   the steady state holds no race, no deadlock and no atomicity violation: the
   analyses' cost is their per-event cost, not that of reporting thousands of
   findings. One unprotected read-modify-write per thread (`racy`) gives the
   race engines one finding to report (and the atomicity analysis one when the
   workers' starts are recorded close together), so a run shows that findings
   survive billions of events. Usage: lock_pairs [THREADS=4] [OPS=1000000]. Prints a checksum. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

enum { kStripes = 16, kWords = 4096, kBlock = 4, kMaxThreads = 64 };

static uint64_t* shared_words;
static pthread_mutex_t stripes[kStripes];
static pthread_mutex_t own[kMaxThreads];
static long ops;
static long racy;

static void* worker(void* arg) {
  const int self = (int)(uintptr_t)arg;
  uint64_t x = (uint64_t)(self + 1) * 0x9E3779B97F4A7C15ull;
  racy += self;
  for (long op = 0; op < ops; ++op) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    const unsigned stripe = (unsigned)(x % kStripes);
    /* A block of kBlock words owned by this stripe: word w belongs to stripe
       (w / kBlock) % kStripes, so every access to it holds that stripe. */
    const unsigned block = (unsigned)((x >> 8) % (kWords / kBlock / kStripes)) * kStripes + stripe;
    uint64_t* w = &shared_words[block * kBlock];
    pthread_mutex_lock(&stripes[stripe]);
    pthread_mutex_lock(&own[self]);
    for (int i = 0; i < kBlock; ++i) w[i] += (uint64_t)i + 1;
    pthread_mutex_unlock(&own[self]);
    pthread_mutex_unlock(&stripes[stripe]);
  }
  return NULL;
}

int main(int argc, char** argv) {
  const int threads = argc > 1 ? atoi(argv[1]) : 4;
  ops = argc > 2 ? atol(argv[2]) : 1000000;
  if (threads < 1 || threads > kMaxThreads || ops < 1) {
    fprintf(stderr, "usage: lock_pairs [THREADS=4 (1..64)] [OPS=1000000]\n");
    return 2;
  }
  shared_words = calloc(kWords, sizeof *shared_words);
  for (int i = 0; i < kStripes; ++i) pthread_mutex_init(&stripes[i], NULL);
  for (int i = 0; i < threads; ++i) pthread_mutex_init(&own[i], NULL);
  pthread_t t[kMaxThreads];
  for (int i = 0; i < threads; ++i) pthread_create(&t[i], NULL, worker, (void*)(uintptr_t)i);
  for (int i = 0; i < threads; ++i) pthread_join(t[i], NULL);
  uint64_t sum = 0;
  for (int i = 0; i < kWords; ++i) sum += shared_words[i];
  printf("checksum %llu\n", (unsigned long long)sum);
  /* Each operation adds 1 + 2 + 3 + 4 = 10. */
  return sum == (uint64_t)threads * (uint64_t)ops * 10 ? 0 : 1;
}
