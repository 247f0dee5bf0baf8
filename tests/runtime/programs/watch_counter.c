// A service-like loop for seer record --watch (tests/runtime/watch_test.cc):
// two workers bump a statistics counter beside work done under a lock, for
// DURATION_MS (argv[1], default 1000). How the counter is bumped is the build's:
//   default             counter++ outside the lock: a data race
//   -DWATCH_LOCKED      counter++ under the lock: race-free
//   -DWATCH_ATOMIC      a relaxed atomic add: race-free
// argv[2] adds one behaviour the watches must live with:
//   fork     a forked child runs the same loop for a while first (its copy of
//            the watch slots must not be used: inherit_thread)
//   sigtrap  the program's own SIGTRAP handler must still run
//   blocked  the workers block every signal, as many services' do (the sampler's SIGTRAP stays pending)
//   unblock  the same, and they unblock them after their loop (seer record -p: after the detach)
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long counter;
static long guarded;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long duration_ms = 1000;
static volatile sig_atomic_t sigtrap_handled;
static int block_signals;  // 1: blocked, 2: unblocked at the end

static double Now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

static void Bump(void) {
#if defined(WATCH_LOCKED)
  pthread_mutex_lock(&lock);
  counter++;
  pthread_mutex_unlock(&lock);
#elif defined(WATCH_ATOMIC)
  __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
#else
  counter++;  // line 43: watch_test.cc looks for it in the reports
#endif
}

static void* Worker(void* arg) {
  (void)arg;
  if (block_signals) {
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
  }
  const double end = Now() + duration_ms / 1000.0;
  long local = 0;
  while (Now() < end) {
    for (int i = 0; i < 256; ++i) {
      pthread_mutex_lock(&lock);
      guarded++;
      pthread_mutex_unlock(&lock);
      Bump();
      local += i;
    }
  }
  if (block_signals == 2) {
    // A tick of a deleted timer still pending here must not be delivered.
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_UNBLOCK, &all, NULL);
  }
  return (void*)local;
}

static long Run(void) {
  pthread_t t[2];
  for (int i = 0; i < 2; ++i) pthread_create(&t[i], NULL, Worker, NULL);
  for (int i = 0; i < 2; ++i) pthread_join(t[i], NULL);
  return guarded;
}

static void OnSigtrap(int sig) {
  (void)sig;
  sigtrap_handled = 1;
}

int main(int argc, char** argv) {
  if (argc > 1) duration_ms = atol(argv[1]);
  const char* extra = argc > 2 ? argv[2] : "";
  block_signals = strcmp(extra, "blocked") == 0 ? 1 : strcmp(extra, "unblock") == 0 ? 2 : 0;
  if (strcmp(extra, "sigtrap") == 0) {
    signal(SIGTRAP, OnSigtrap);
    raise(SIGTRAP);
    printf("sigtrap_handled=%d\n", (int)sigtrap_handled);
  }
  if (strcmp(extra, "fork") == 0) {
    fflush(stdout);
    const pid_t child = fork();
    if (child == 0) {
      const long saved = duration_ms;
      duration_ms = saved / 4;
      Run();
      printf("child_done=1\n");
      fflush(stdout);
      _exit(0);
    }
    int status = 0;
    waitpid(child, &status, 0);
    printf("child_status=%d\n", WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
  }
  const long g = Run();
  printf("guarded=%ld counter=%ld\n", g, counter);
  return 0;
}
