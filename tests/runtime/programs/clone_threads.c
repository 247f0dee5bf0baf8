/* Threads made with raw clone() (CLONE_VM without CLONE_SETTLS: they share the
   main thread's TLS block, and so the runtime's thread-local state), each on a
   stack of its own, taking a pthread mutex and writing memory, and ending
   while the main thread and the others run on; several rounds. Prints
   "threads=N lock_pairs=M" (threads: the main thread, the warm-up pthread and
   the clone()d ones) for reentry_test.cc. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

enum { kRounds = 5, kThreads = 4, kIters = 2000, kStack = 256 * 1024 };
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;
static long touched[kRounds * kThreads];
static int done[kThreads];

static int Body(void* arg) {
  long id = (long)arg;
  for (int i = 0; i < kIters; ++i) {
    pthread_mutex_lock(&lock);
    counter++;
    pthread_mutex_unlock(&lock);
    touched[id]++;
  }
  __atomic_store_n(&done[id % kThreads], 1, __ATOMIC_RELEASE);
  return 0; /* glibc's clone ends the thread */
}

static void* Nothing(void* arg) { return arg; }

int main(void) {
  /* glibc's mutexes skip their atomics while it believes the process has one
     thread, and only pthread_create tells it otherwise: raw clone() does not. */
  pthread_t warm;
  pthread_create(&warm, NULL, Nothing, NULL);
  pthread_join(warm, NULL);
  char* stacks = malloc((size_t)kThreads * kStack);
  for (int r = 0; r < kRounds; ++r) {
    for (int t = 0; t < kThreads; ++t) __atomic_store_n(&done[t], 0, __ATOMIC_RELAXED);
    for (int t = 0; t < kThreads; ++t) {
      const int flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM;
      if (clone(Body, stacks + (size_t)(t + 1) * kStack, flags, (void*)(long)(r * kThreads + t)) < 0) {
        perror("clone");
        return 1;
      }
    }
    for (int i = 0; i < kIters; ++i) { /* the main thread runs on meanwhile */
      pthread_mutex_lock(&lock);
      counter++;
      pthread_mutex_unlock(&lock);
    }
    for (int t = 0; t < kThreads; ++t)
      while (!__atomic_load_n(&done[t], __ATOMIC_ACQUIRE)) sched_yield();
    /* A done flag is set before its thread's last hooks returned and before
       the thread left its stack: wait until no thread of this round is left. */
    usleep(20000);
  }
  const long pairs = (long)kRounds * (kThreads + 1) * kIters;
  printf("threads=%d lock_pairs=%ld\n", 2 + kRounds * kThreads, pairs);
  return counter == pairs ? 0 : 1;
}
