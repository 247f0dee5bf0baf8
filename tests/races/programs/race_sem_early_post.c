/* The thread posts the semaphore before writing the value it announces. */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>

sem_t ready;
int value;

static void* worker(void* arg) {
  sem_post(&ready);
  value = 9;  // RACE(a)
  return arg;
}

int main(void) {
  sem_init(&ready, 0, 0);
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  sem_wait(&ready);
  printf("%d\n", value);  // RACE(a)
  pthread_join(t, NULL);
  return 0;
}
