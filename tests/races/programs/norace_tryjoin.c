/* A thread writes a global; main reads it after joining the thread with
   pthread_tryjoin_np (polled until the thread has ended), then the same with
   pthread_timedjoin_np and pthread_clockjoin_np: a join that succeeds orders the
   thread before the caller (ThreadSanitizer's tryjoin and timedjoin tests). */
// seer-expect: none
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#include "suite.h"

int result;

static void* worker(void* arg) {
  result += 1;
  return arg;
}

/* Ten seconds from now on `clock`. */
static struct timespec in_ten_seconds(clockid_t clock) {
  struct timespec t;
  clock_gettime(clock, &t);
  t.tv_sec += 10;
  return t;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  int rc;
  while ((rc = pthread_tryjoin_np(t, NULL)) == EBUSY) sleep_ms(1);
  if (rc != 0) return 1;
  result += 1;

  pthread_create(&t, NULL, worker, NULL);
  struct timespec deadline = in_ten_seconds(CLOCK_REALTIME);
  if (pthread_timedjoin_np(t, NULL, &deadline) != 0) return 1;
  result += 1;

  pthread_create(&t, NULL, worker, NULL);
  deadline = in_ten_seconds(CLOCK_MONOTONIC);
  if (pthread_clockjoin_np(t, NULL, CLOCK_MONOTONIC, &deadline) != 0) return 1;
  result += 1;
  printf("%d\n", result);
  return result == 6 ? 0 : 1;
}
