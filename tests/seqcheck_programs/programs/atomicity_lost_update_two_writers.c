/* The textbook lost update: two threads each add to a shared balance in two
   steps, reading it under one hold of the lock and writing the sum under the
   next. Here the second thread runs after the first is done; had it read between
   the first one's read and write, one deposit would be lost.
   seer-record: inproc
   seer-atomicity: deposit read-write-write
   seer-known-failure: deposit without branch events in the trace (seer-cc records none), SeqCheck takes every read to
   be followed by a branch: the second thread's read must keep the first thread's write it saw, so its write cannot come
   before that write (docs/seqcheck.md, "What it can miss") */
#include <pthread.h>

#include "order.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long balance;

static void deposit(long amount) {
  pthread_mutex_lock(&lock);
  long seen = balance;  // ATOMICITY(deposit) first
  pthread_mutex_unlock(&lock);
  pthread_mutex_lock(&lock);
  balance = seen + amount;  // ATOMICITY(deposit) remote second
  pthread_mutex_unlock(&lock);
}

static void* first(void* arg) {
  (void)arg;
  deposit(10);
  return NULL;
}

static void* second(void* arg) {
  (void)arg;
  sleep_ms(STAGGER_MS);
  deposit(20);
  return NULL;
}

int main(void) {
  start_watchdog();
  pthread_t t1, t2;
  pthread_create(&t1, NULL, first, NULL);
  pthread_create(&t2, NULL, second, NULL);
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  return 0;
}
