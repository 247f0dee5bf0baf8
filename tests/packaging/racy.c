// Two threads add to `counter` without a lock (the race the install tests
// expect seer to find) and to `guarded` under one (no race).
#include <pthread.h>
#include <stdio.h>

static long counter;
static long guarded;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void* Work(void* arg) {
  (void)arg;
  for (int i = 0; i < 1000; i++) {
    counter++;  // seer: race
    pthread_mutex_lock(&lock);
    guarded++;
    pthread_mutex_unlock(&lock);
  }
  return NULL;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, Work, NULL);
  pthread_create(&b, NULL, Work, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  printf("guarded=%ld\n", guarded);
  return 0;
}
