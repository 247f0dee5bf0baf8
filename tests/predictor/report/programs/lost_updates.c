// Report test program: one lost update repeated on every account of a heap
// array. The interest thread reads a balance under the lock, releases it and
// writes the new balance under the lock again; the reset thread sets each
// balance in one critical section. In the recorded run the resets come after
// the interest (the sleep), so no reset is lost; a reordering can put a reset
// between the read and the write, which then overwrites it. (A deposit, which
// reads the balance it overwrites, could not be moved there soundly: what it
// reads would change.) The report shows the violation once
// for its three lines, with how many accounts it was seen on, and names the
// heap block with its allocation line.
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#define ACCOUNTS 4

static long* balances;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static void* Interest(void* arg) {
  for (int i = 0; i < ACCOUNTS; ++i) {
    pthread_mutex_lock(&mu);
    long balance = balances[i];  // MARK-READ
    pthread_mutex_unlock(&mu);
    pthread_mutex_lock(&mu);
    balances[i] = balance + balance / 10;  // MARK-WRITE
    pthread_mutex_unlock(&mu);
  }
  return arg;
}

static void* Reset(void* arg) {
  usleep(20000);
  for (int i = 0; i < ACCOUNTS; ++i) {
    pthread_mutex_lock(&mu);
    balances[i] = 0;  // MARK-RESET
    pthread_mutex_unlock(&mu);
  }
  return arg;
}

int main(void) {
  balances = calloc(ACCOUNTS, sizeof *balances);  // MARK-ALLOC
  for (int i = 0; i < ACCOUNTS; ++i) balances[i] = 100;
  pthread_t a, b;
  pthread_create(&a, NULL, Interest, NULL);
  pthread_create(&b, NULL, Reset, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  long total = 0;
  for (int i = 0; i < ACCOUNTS; ++i) total += balances[i];
  free(balances);
  return total == 0 ? 0 : 1;  // every reset came last
}
