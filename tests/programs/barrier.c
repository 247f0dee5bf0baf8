/* A barrier: 4 threads meet 10 times. */
#include <pthread.h>

static pthread_barrier_t bar;

static void* worker(void* arg) {
  (void)arg;
  for (int i = 0; i < 10; i++) pthread_barrier_wait(&bar);
  return 0;
}

int main(void) {
  pthread_barrier_init(&bar, 0, 4);
  pthread_t t[4];
  for (int i = 0; i < 4; i++) pthread_create(&t[i], 0, worker, 0);
  for (int i = 0; i < 4; i++) pthread_join(t[i], 0);
  pthread_barrier_destroy(&bar);
  return 0;
}
