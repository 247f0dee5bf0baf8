/* Two writers update a counter under a mutex (no race between them); a third
   thread reads it without the mutex. */
#include <pthread.h>
#include <stdio.h>

pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
long counter;
long observed;

static void* writer(void* arg) {
  pthread_mutex_lock(&mu);
  counter++;  // RACE(a)
  pthread_mutex_unlock(&mu);
  return arg;
}

static void* reader(void* arg) {
  observed = counter;  // RACE(a)
  return arg;
}

int main(void) {
  pthread_t t[3];
  pthread_create(&t[0], NULL, writer, NULL);
  pthread_create(&t[1], NULL, writer, NULL);
  pthread_create(&t[2], NULL, reader, NULL);
  for (int i = 0; i < 3; ++i) pthread_join(t[i], NULL);
  printf("%ld %ld\n", counter, observed);
  return 0;
}
