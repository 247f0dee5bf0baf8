/* A running service for `seer record -p PID` (tests/recorder/inject_test.cc):
 * prints its pid, then worker threads count under a mutex while the main
 * thread waits for commands on stdin. One worker holds a lock from its start
 * until "release" (so the recorder attaches while a lock is held and sees it
 * released), then takes and releases it in a loop. "invert" runs a lock-order
 * inversion once (one thread takes A then B, another, after a pause, B then A:
 * this run never deadlocks, another schedule would) and prints "inverted".
 * "handoff" runs three futex handoffs through syscall(SYS_futex) from main to
 * a new thread (each wait ended by main's FUTEX_WAKE) and prints "handed".
 * "fork" forks a child that takes a lock once and exits, waits for it and
 * prints "forked". "pipe" hands a byte through a pipe from a new thread to
 * main (the kernel's synchronisation: a signal and a wait on the pipe) and
 * prints "piped".
 * "stop" ends the workers and prints "ok TOTAL SUM": the shared count and the
 * sum of what each worker counted, which are equal when no increment was lost;
 * it exits with 0 then, 1 otherwise. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test_futex.h"

enum { kWorkers = 3 };

static pthread_mutex_t count_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t held_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
static long total;
static int inverted;
static volatile int stopping, released;
static _Atomic int handoff_word;

static void pause_us(long us) {
  const struct timespec t = {0, us * 1000};
  nanosleep(&t, 0);
}

static void* worker(void* arg) {
  long* mine = arg;
  while (!stopping) {
    for (int i = 0; i < 200; ++i) {
      pthread_mutex_lock(&count_lock);
      ++total;
      pthread_mutex_unlock(&count_lock);
      ++*mine;
    }
    pause_us(1000);
  }
  return 0;
}

static void* holder(void* arg) {
  (void)arg;
  pthread_mutex_lock(&held_lock);
  while (!released && !stopping) pause_us(1000);
  pthread_mutex_unlock(&held_lock);
  while (!stopping) {
    pthread_mutex_lock(&held_lock);
    pause_us(20000);
    pthread_mutex_unlock(&held_lock);
    pause_us(100);
  }
  return 0;
}

static void* a_then_b(void* arg) {
  (void)arg;
  pthread_mutex_lock(&a);
  pthread_mutex_lock(&b);
  ++inverted;
  pthread_mutex_unlock(&b);
  pthread_mutex_unlock(&a);
  return 0;
}

static void* b_then_a(void* arg) {
  (void)arg;
  pause_us(100000);
  pthread_mutex_lock(&b);
  pthread_mutex_lock(&a);
  ++inverted;
  pthread_mutex_unlock(&a);
  pthread_mutex_unlock(&b);
  return 0;
}

static void* handoff_waiter(void* arg) {
  (void)arg;
  wait_rounds(&handoff_word, 1, 3);
  return 0;
}

static int pipe_fds[2];

static void* pipe_writer(void* arg) {
  (void)arg;
  const char byte = 1;
  if (write(pipe_fds[1], &byte, 1) != 1) return (void*)1;
  return 0;
}

static void pipe_handoff(void) {
  pthread_t t;
  char byte = 0;
  if (pipe(pipe_fds) != 0) return;
  pthread_create(&t, 0, pipe_writer, 0);
  if (read(pipe_fds[0], &byte, 1) != 1) byte = 0;
  pthread_join(t, 0);
  close(pipe_fds[0]);
  close(pipe_fds[1]);
}

static void handoff(void) {
  pthread_t t;
  atomic_store(&handoff_word, 0);
  pthread_create(&t, 0, handoff_waiter, 0);
  wake_rounds(&handoff_word, 1, 3, 20000);
  pthread_join(t, 0);
}

int main(void) {
  pthread_t workers[kWorkers], hold;
  long counts[kWorkers] = {0};
  setvbuf(stdout, 0, _IOLBF, 0);
  for (int i = 0; i < kWorkers; ++i) pthread_create(&workers[i], 0, worker, &counts[i]);
  pthread_create(&hold, 0, holder, 0);
  printf("%d\n", (int)getpid());
  char line[64];
  while (fgets(line, sizeof line, stdin) != 0) {
    if (strncmp(line, "invert", 6) == 0) {
      pthread_t t1, t2;
      pthread_create(&t1, 0, a_then_b, 0);
      pthread_create(&t2, 0, b_then_a, 0);
      pthread_join(t1, 0);
      pthread_join(t2, 0);
      printf("inverted\n");
    } else if (strncmp(line, "handoff", 7) == 0) {
      handoff();
      printf("handed\n");
    } else if (strncmp(line, "pipe", 4) == 0) {
      pipe_handoff();
      printf("piped\n");
    } else if (strncmp(line, "fork", 4) == 0) {
      const pid_t child = fork();
      if (child == 0) {
        pthread_mutex_lock(&a);
        pthread_mutex_unlock(&a);
        _exit(0);
      }
      waitpid(child, 0, 0);
      printf("forked\n");
    } else if (strncmp(line, "release", 7) == 0) {
      released = 1;
    } else if (strncmp(line, "stop", 4) == 0) {
      break;
    }
  }
  stopping = 1;
  for (int i = 0; i < kWorkers; ++i) pthread_join(workers[i], 0);
  pthread_join(hold, 0);
  long sum = 0;
  for (int i = 0; i < kWorkers; ++i) sum += counts[i];
  printf("ok %ld %ld %d\n", total, sum, inverted);
  return total == sum && (inverted == 0 || inverted == 2) ? 0 : 1;
}
