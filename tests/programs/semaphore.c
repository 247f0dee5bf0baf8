/* Semaphores: a producer posts 50 times, a consumer waits 50 times. */
#include <pthread.h>
#include <semaphore.h>

static sem_t items;

static void* producer(void* arg) {
  (void)arg;
  for (int i = 0; i < 50; i++) sem_post(&items);
  return 0;
}

static void* consumer(void* arg) {
  (void)arg;
  for (int i = 0; i < 50; i++) sem_wait(&items);
  return 0;
}

int main(void) {
  sem_init(&items, 0, 0);
  pthread_t p, c;
  pthread_create(&c, 0, consumer, 0);
  pthread_create(&p, 0, producer, 0);
  pthread_join(p, 0);
  pthread_join(c, 0);
  return 0;
}
