/* The hand-off every fork/join program has: main sets up a total, starts workers
   that add to it under a lock, joins them and reads the result. Main's write
   before the fork and its read after the join are not meant to be atomic, and
   every schedule puts the workers' writes between them (fork and join order
   them): no other run of the program behaves differently. The atomicity patterns
   would call it write-write-read around a worker's write; SeqCheck drops an
   intruder that hard orders (program order, fork/join, signal/wait) put between
   the two accesses in every schedule (docs/seqcheck.md), so nothing is reported.
   seer-record: inproc
   seer-expect: none */
#include <pthread.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long total;

static void* worker(void* arg) {
  pthread_mutex_lock(&lock);
  total += (long)arg;  // after main's write (fork), before its read (join)
  pthread_mutex_unlock(&lock);
  return NULL;
}

int main(void) {
  total = 100;  // main's first access
  pthread_t t1, t2;
  pthread_create(&t1, NULL, worker, (void*)1);
  pthread_create(&t2, NULL, worker, (void*)2);
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  return total == 103 ? 0 : 1;  // main's second access
}
