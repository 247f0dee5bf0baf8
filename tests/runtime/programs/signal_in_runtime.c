/* A SIGALRM handler (setitimer, every 100 us) that takes a mutex, allocates,
   writes and frees, while both threads are inside the runtime's hooks most of
   the time (lock/unlock loops, malloc/free). Prints "handled=H lock_pairs=M"
   (every pair, the handlers' included) and the handler's mutex's address for
   reentry_test.cc. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

enum { kIters = 40000 };
static pthread_mutex_t handler_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t main_lock = PTHREAD_MUTEX_INITIALIZER;
static volatile sig_atomic_t handled;
static long handler_data;
static long shared[64];
/* Set while the thread runs its loop: a handler that runs while the thread
   starts or ends (the runtime records handlers only in a thread that is
   recording) does nothing. */
static __thread volatile sig_atomic_t in_loop;

static void OnAlarm(int sig) {
  (void)sig;
  if (!in_loop) return;
  pthread_mutex_lock(&handler_lock);
  handler_data++;
  handled++;
  pthread_mutex_unlock(&handler_lock);
  char* p = malloc(32);
  memset(p, 1, 32);
  free(p);
}

static void Loop(void) {
  in_loop = 1;
  for (int i = 0; i < kIters; ++i) {
    pthread_mutex_lock(&main_lock);
    shared[i & 63]++;
    pthread_mutex_unlock(&main_lock);
    free(malloc(16 + (i & 63)));
  }
  in_loop = 0;
}

static void* Worker(void* arg) {
  Loop();
  return arg;
}

int main(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = OnAlarm;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  if (sigaction(SIGALRM, &sa, NULL) != 0) return 1;
  const struct itimerval every = {{0, 100}, {0, 100}};
  setitimer(ITIMER_REAL, &every, NULL);
  pthread_t t;
  pthread_create(&t, NULL, Worker, NULL);
  Loop();
  pthread_join(t, NULL);
  const struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &off, NULL);
  /* Blocked from here: no handler runs between the count and its print. */
  sigset_t alarm;
  sigemptyset(&alarm);
  sigaddset(&alarm, SIGALRM);
  sigprocmask(SIG_BLOCK, &alarm, NULL);
  printf("handled=%ld lock_pairs=%ld handler_lock=%lx\n", (long)handled, 2L * kIters + handler_data,
         (unsigned long)&handler_lock);
  return 0;
}
