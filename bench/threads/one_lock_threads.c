// The thread-count benchmark's recorded program: N threads, each taking one
// mutex M times around a shared counter (the shape of a thread-per-connection
// server's stats lock). Usage: one_lock_threads [N=1000] [M=100]
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long counter;
static int iters = 100;
static void* body(void* arg) {
  (void)arg;
  for (int i = 0; i < iters; ++i) {
    pthread_mutex_lock(&m);
    ++counter;
    pthread_mutex_unlock(&m);
  }
  return NULL;
}
int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  if (argc > 2) iters = atoi(argv[2]);
  pthread_t* t = malloc(sizeof(pthread_t) * n);
  for (int i = 0; i < n; ++i) pthread_create(&t[i], NULL, body, NULL);
  for (int i = 0; i < n; ++i) pthread_join(t[i], NULL);
  printf("%ld\n", counter);
  return 0;
}
