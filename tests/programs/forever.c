/* Runs until killed: a thread takes a lock every millisecond. For attach-by-PID
 * and recorder-death tests. Prints "ready" once its thread runs. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static volatile long ticks;

static void* ticker(void* arg) {
  (void)arg;
  for (;;) {
    pthread_mutex_lock(&mu);
    ticks++;
    pthread_mutex_unlock(&mu);
    usleep(1000);
  }
  return 0;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, ticker, 0);
  printf("ready\n");
  fflush(stdout);
  for (;;) pause();
}
