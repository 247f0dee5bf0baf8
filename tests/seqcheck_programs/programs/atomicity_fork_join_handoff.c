/* The hand-off every fork/join program has: main sets up a total, starts workers
   that add to it under a lock, joins them and reads the result. Main's write
   before the fork and its read after the join are not meant to be atomic, and
   every schedule puts the workers' writes between them (fork and join order
   them): no other run of the program behaves differently. The atomicity patterns
   (SeqCheck's, the paper's definition) have no notion of intended atomicity, so
   main's write and read are reported as write-write-read around a worker's write,
   with the recorded run as witness.
   seer-record: inproc
   seer-atomicity: handoff write-write-read
   seer-known-false-positive: handoff the intruding write is ordered between main's two accesses by fork and join in every schedule; a filter for "e1 -> e -> e2 by hard orders" would drop it (docs/seqcheck.md) */
#include <pthread.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long total;

static void* worker(void* arg) {
  pthread_mutex_lock(&lock);
  total += (long)arg; // ATOMICITY(handoff) remote
  pthread_mutex_unlock(&lock);
  return NULL;
}

int main(void) {
  total = 100; // ATOMICITY(handoff) first
  pthread_t t1, t2;
  pthread_create(&t1, NULL, worker, (void*)1);
  pthread_create(&t2, NULL, worker, (void*)2);
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  return total == 103 ? 0 : 1; // ATOMICITY(handoff) second
}
