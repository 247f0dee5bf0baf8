/* A recursive mutex taken twice by each thread around the update: only the
   outermost unlock releases it. */
// seer-expect: none
#include <pthread.h>
#include <stdio.h>

pthread_mutex_t mu;
long counter;

static void bump(void) {
  pthread_mutex_lock(&mu);
  counter++;
  pthread_mutex_unlock(&mu);
}

static void* worker(void* arg) {
  for (int i = 0; i < 20; ++i) {
    pthread_mutex_lock(&mu);
    bump();
    counter++;
    pthread_mutex_unlock(&mu);
  }
  return arg;
}

int main(void) {
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_init(&mu, &attr);
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  worker(NULL);
  pthread_join(t, NULL);
  printf("%ld\n", counter);
  return 0;
}
