/* Two threads each take a mutex 10 times; once they are joined, main replaces the
 * program with exec: `exec_after_threads PROGRAM ARGS...` runs PROGRAM. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int counter;

static void* worker(void* arg) {
  (void)arg;
  for (int i = 0; i < 10; i++) {
    pthread_mutex_lock(&mu);
    counter++;
    pthread_mutex_unlock(&mu);
  }
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: exec_after_threads PROGRAM ARGS...\n");
    return 2;
  }
  pthread_t t[2];
  for (int i = 0; i < 2; i++) pthread_create(&t[i], 0, worker, 0);
  for (int i = 0; i < 2; i++) pthread_join(t[i], 0);
  if (counter != 20) return 1;
  execv(argv[1], argv + 1);
  perror("exec_after_threads: execv");
  return 127;
}
