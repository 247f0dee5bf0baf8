/* The frame of the reentry programs (reentry_test.cc): a SIGALRM every 100 us
   while two threads, main and one more, each run `loop`; then the timer off
   and SIGALRM blocked, so that no handler runs between the program's counts
   and their print. Returns non-zero when the handler cannot be installed. */
#pragma once
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/time.h>

static void* AlarmLoopsWorker(void* loop) {
  ((void (*)(void))loop)();
  return NULL;
}

static int RunLoopsUnderAlarms(void (*loop)(void), void (*handler)(int)) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = handler;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  if (sigaction(SIGALRM, &sa, NULL) != 0) return 1;
  const struct itimerval every = {{0, 100}, {0, 100}};
  setitimer(ITIMER_REAL, &every, NULL);
  pthread_t t;
  pthread_create(&t, NULL, AlarmLoopsWorker, (void*)loop);
  loop();
  pthread_join(t, NULL);
  const struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &off, NULL);
  sigset_t alarm;
  sigemptyset(&alarm);
  sigaddset(&alarm, SIGALRM);
  sigprocmask(SIG_BLOCK, &alarm, NULL);
  return 0;
}
