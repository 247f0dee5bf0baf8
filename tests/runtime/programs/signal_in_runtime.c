/* A SIGALRM handler (setitimer, every 100 us) that takes a mutex, allocates,
   writes and frees, while both threads are inside the runtime's hooks most of
   the time (lock/unlock loops, malloc/free). Prints "handled=H lock_pairs=M"
   (every pair, the handlers' included) and the handler's mutex's address for
   reentry_test.cc. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alarm_loops.h"

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

int main(void) {
  if (RunLoopsUnderAlarms(Loop, OnAlarm) != 0) return 1;
  printf("handled=%ld lock_pairs=%ld handler_lock=%lx\n", (long)handled, 2L * kIters + handler_data,
         (unsigned long)&handler_lock);
  return 0;
}
