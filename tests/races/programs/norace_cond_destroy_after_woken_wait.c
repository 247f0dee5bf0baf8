/* race_cond_destroy_after_woken_wait.c with the signal made under the mutex:
   the waiter's wait returns with the mutex, after the worker unlocked it, so
   the signal's use of the condition variable happens before the destroy. */
// seer-expect: none
#include <pthread.h>

#include "suite.h"

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t c = PTHREAD_COND_INITIALIZER;
int done;

static void* worker(void* arg) {
  (void)arg;
  sleep_ms(50);
  pthread_mutex_lock(&m);
  done = 1;
  pthread_cond_signal(&c);
  pthread_mutex_unlock(&m);
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  pthread_mutex_lock(&m);
  while (!done) pthread_cond_wait(&c, &m);
  pthread_mutex_unlock(&m);
  pthread_cond_destroy(&c);
  pthread_join(t, NULL);
  return 0;
}
