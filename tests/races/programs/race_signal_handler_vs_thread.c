/* main starts a worker that writes a counter, then raises SIGUSR1, whose
   handler writes the same counter. raise() orders main's code with its handler,
   nothing orders the handler with the worker: a race (the handler runs on a
   ring of its own; this checks that the order raise() gives hides no race). */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>

int counter;

static void handler(int sig) {
  (void)sig;
  counter = 2;  // RACE(a)
}

static void* worker(void* arg) {
  (void)arg;
  counter = 1;  // RACE(a)
  return NULL;
}

int main(void) {
  if (signal(SIGUSR1, handler) == SIG_ERR) return 1;
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  if (raise(SIGUSR1) != 0) return 1;
  pthread_join(t, NULL);
  printf("%d\n", counter);
  return 0;
}
