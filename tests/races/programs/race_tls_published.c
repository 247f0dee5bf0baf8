/* A thread publishes the address of its thread-local variable under a mutex (the
   hand-over itself is ordered); afterwards both it and main write the variable
   without synchronisation, before a second barrier (which keeps the thread, and
   so its TLS, alive until main has written). */
#include <pthread.h>
#include <stdio.h>

__thread long tls_slot;
long* published;
pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
pthread_barrier_t both_ready, both_done;

static void* worker(void* arg) {
  pthread_mutex_lock(&mu);
  published = &tls_slot;
  pthread_mutex_unlock(&mu);
  pthread_barrier_wait(&both_ready);
  tls_slot = 10;  // RACE(a)
  pthread_barrier_wait(&both_done);
  return arg;
}

int main(void) {
  pthread_barrier_init(&both_ready, NULL, 2);
  pthread_barrier_init(&both_done, NULL, 2);
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  pthread_barrier_wait(&both_ready);
  pthread_mutex_lock(&mu);
  long* p = published;
  pthread_mutex_unlock(&mu);
  *p = 20;  // RACE(a)
  pthread_barrier_wait(&both_done);
  pthread_join(t, NULL);
  return 0;
}
