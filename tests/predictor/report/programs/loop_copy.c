// Report test program: no atomicity violation (issue #34). The producer, in a
// loop, writes a new entry's value in one critical section and copies the
// previous entry's value in the next iteration's, a later critical section of
// the same lock; the updater bumps each entry under the lock in between (the
// sleeps put it there in the recorded run). The copy takes whatever the entry
// holds by then, bumped or not: the write and the copy were never meant to be
// atomic (the producer released the lock after the write, publishing it), so
// the write-write-read that the recorded order itself shows is no bug.
#include <pthread.h>
#include <unistd.h>

#define ENTRIES 4

struct entry {
  long value;
};

static struct entry entries[ENTRIES];
static long copies[ENTRIES];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static void* Producer(void* arg) {
  for (int i = 0; i <= ENTRIES; ++i) {
    pthread_mutex_lock(&mu);
    if (i > 0) copies[i - 1] = entries[i - 1].value;   // MARK-COPY
    if (i < ENTRIES) entries[i].value = 10 * (i + 1);  // MARK-WRITE
    pthread_mutex_unlock(&mu);
    usleep(20000);  // the updater's turn
  }
  return arg;
}

static void* Updater(void* arg) {
  usleep(10000);
  for (int i = 0; i < ENTRIES; ++i) {
    pthread_mutex_lock(&mu);
    entries[i].value += 1;  // MARK-UPDATE
    pthread_mutex_unlock(&mu);
    usleep(20000);
  }
  return arg;
}

int main(void) {
  pthread_t p, u;
  pthread_create(&p, NULL, Producer, NULL);
  pthread_create(&u, NULL, Updater, NULL);
  pthread_join(p, NULL);
  pthread_join(u, NULL);
  long total = 0;
  for (int i = 0; i < ENTRIES; ++i) total += copies[i];
  return total > 0 ? 0 : 1;
}
