/* A worker ignores its synchronisation (AnnotateIgnoreSyncBegin) while it
   spins; a periodic timer's handler, when it runs on that worker, writes
   `data` and publishes it with a release store, which main acquires before
   it reads `data`. A handler's synchronisation counts whatever the code it
   interrupted ignores, as ThreadSanitizer has it (signal_sync2.cpp). No
   race. */
// seer-expect: none
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

void AnnotateIgnoreSyncBegin(const char* file, int line);
void AnnotateIgnoreSyncEnd(const char* file, int line);

// Each on a line of its own: the runtime orders atomics under a lock per
// 16-byte granule, and a handler's atomic in the granule whose atomic the
// interrupted code is inside is not recorded (counted lost; runtime.md,
// "Limitations"): the test would depend on where the timer struck.
__thread int on_worker __attribute__((aligned(64)));  // relaxed atomic accesses only
int done __attribute__((aligned(64)));                // relaxed atomic accesses only
int ready __attribute__((aligned(64)));
long data __attribute__((aligned(64)));

static void handler(int sig) {
  (void)sig;
  if (!__atomic_load_n(&on_worker, __ATOMIC_RELAXED) || __atomic_load_n(&ready, __ATOMIC_RELAXED)) return;
  data = 42;
  __atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
}

static void* worker(void* arg) {
  (void)arg;
  AnnotateIgnoreSyncBegin(__FILE__, __LINE__);
  __atomic_store_n(&on_worker, 1, __ATOMIC_RELAXED);
  while (!__atomic_load_n(&done, __ATOMIC_RELAXED)) {
  }
  AnnotateIgnoreSyncEnd(__FILE__, __LINE__);
  return NULL;
}

int main(void) {
  struct sigaction act;
  memset(&act, 0, sizeof act);
  act.sa_handler = handler;
  sigemptyset(&act.sa_mask);
  if (sigaction(SIGPROF, &act, NULL) != 0) return 1;
  struct itimerval timer = {{0, 1000}, {0, 1000}};
  if (setitimer(ITIMER_PROF, &timer, NULL) != 0) return 1;
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  while (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE)) {
  }
  printf("%ld\n", data);
  __atomic_store_n(&done, 1, __ATOMIC_RELAXED);
  pthread_join(t, NULL);
  memset(&timer, 0, sizeof timer);
  setitimer(ITIMER_PROF, &timer, NULL);
  return data == 42 ? 0 : 1;
}
