/* The worker writes a value, then posts; main waits, then reads. */
// seer-expect: none
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>

sem_t ready;
long value[3];

static void* worker(void* arg) {
  for (int i = 0; i < 3; ++i) value[i] = 7 * (i + 1);
  sem_post(&ready);
  return arg;
}

int main(void) {
  sem_init(&ready, 0, 0);
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  sem_wait(&ready);
  printf("%ld\n", value[0] + value[1] + value[2]);
  pthread_join(t, NULL);
  return 0;
}
