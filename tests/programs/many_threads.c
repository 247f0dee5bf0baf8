/* 64 threads, each taking one shared mutex 1,000 times (argv[1] overrides the count). */
#include <pthread.h>
#include <stdlib.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static long counter;
static int rounds = 1000;

static void* worker(void* arg) {
  (void)arg;
  for (int i = 0; i < rounds; i++) {
    pthread_mutex_lock(&mu);
    counter++;
    pthread_mutex_unlock(&mu);
  }
  return 0;
}

int main(int argc, char** argv) {
  if (argc > 1) rounds = atoi(argv[1]);
  pthread_t t[64];
  for (int i = 0; i < 64; i++) pthread_create(&t[i], 0, worker, 0);
  for (int i = 0; i < 64; i++) pthread_join(t[i], 0);
  return counter == 64L * rounds ? 0 : 1;
}
