/* A thread takes a robust mutex and ends holding it; the next thread to lock
   it gets EOWNERDEAD, which means it owns the mutex now: it makes it
   consistent and updates the counter under it, as the other thread does
   (ThreadSanitizer's robust-mutex tests). */
// seer-expect: none
// seer-std: lossy STD has no robust mutexes: RAPID's format refuses a lock the dead owner never released
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>

pthread_mutex_t m;
int counter;
int owner_died_seen;

static void* dies_holding(void* arg) {
  pthread_mutex_lock(&m);
  return arg;
}

static void* bump(void* arg) {
  const int rc = pthread_mutex_lock(&m);
  if (rc == EOWNERDEAD) {
    pthread_mutex_consistent(&m);
    owner_died_seen += 1;
  } else if (rc != 0) {
    return arg;
  }
  counter += 1;
  pthread_mutex_unlock(&m);
  return arg;
}

int main(void) {
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
  pthread_mutex_init(&m, &attr);
  pthread_t t[2];
  pthread_create(&t[0], NULL, dies_holding, NULL);
  pthread_join(t[0], NULL);
  pthread_create(&t[0], NULL, bump, NULL);
  pthread_create(&t[1], NULL, bump, NULL);
  pthread_join(t[0], NULL);
  pthread_join(t[1], NULL);
  printf("%d %d\n", counter, owner_died_seen);
  /* The scenario: one of the two got EOWNERDEAD, both counted. */
  return counter == 2 && owner_died_seen == 1 ? 0 : 1;
}
