/* main arms a one-shot timer whose handler, run on main (the worker blocks
   SIGALRM), writes `counter`; a worker writes it too. The handler is ordered
   with main, whose code it interrupted: after setitimer(), and before what
   main does after the pause() it ran in (or, had it come between two pauses,
   after main's next synchronisation, the join), so before main's read.
   Nothing orders it with the worker: a race, and the only one. This checks
   that the order a handler gets with its own thread hides no race with
   another. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

int counter;
int fired;  // relaxed atomic accesses only

static void handler(int sig) {
  (void)sig;
  counter = 2;  // RACE(a)
  __atomic_store_n(&fired, 1, __ATOMIC_RELAXED);
}

static void* worker(void* arg) {
  (void)arg;
  counter = 1;  // RACE(a)
  return NULL;
}

int main(void) {
  struct sigaction act;
  memset(&act, 0, sizeof act);
  act.sa_handler = handler;
  sigemptyset(&act.sa_mask);
  if (sigaction(SIGALRM, &act, NULL) != 0) return 1;
  sigset_t alrm;
  sigemptyset(&alrm);
  sigaddset(&alrm, SIGALRM);
  pthread_sigmask(SIG_BLOCK, &alrm, NULL);  // the worker starts with it blocked
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  pthread_sigmask(SIG_UNBLOCK, &alrm, NULL);
  struct itimerval timer = {{0, 0}, {0, 1000}};
  if (setitimer(ITIMER_REAL, &timer, NULL) != 0) return 1;
  while (!__atomic_load_n(&fired, __ATOMIC_RELAXED)) pause();
  pthread_join(t, NULL);
  printf("%d\n", counter);
  return 0;
}
