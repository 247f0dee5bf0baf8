/* SIGSEGV handlers run in the faulting thread's context, as ThreadSanitizer
   runs such synchronous signals: a fault is the thread's own instruction, so
   its handler follows what the thread did before and precedes what it does
   after. Main writes `x` after installing the handler; three faults go to a
   handler that reads `x`, counts in `faults` and leaves by siglongjmp back to
   main's sigsetjmp (ThreadSanitizer's signal_longjmp.cpp); a fourth goes to a
   handler that makes the page writable and returns, and the store is retried.
   Main then reads `faults`, writes `x`, and a worker it creates and joins
   writes `y`, which main reads after the join. No race: not between main and
   its handlers, nor between main before and after a longjmp out of one. */
// seer-expect: none
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <sys/mman.h>

static sigjmp_buf env;
static volatile char* page;
int x, y, faults, seen;

static void jump_back(int sig) {
  (void)sig;
  seen += x;
  faults++;
  siglongjmp(env, 1);
}

static void make_writable(int sig) {
  (void)sig;
  faults++;
  mprotect((void*)page, 4096, PROT_READ | PROT_WRITE);
}

static void* worker(void* arg) {
  (void)arg;
  y = 1;
  return NULL;
}

static int on_segv(void (*handler)(int)) {
  struct sigaction act = {0};
  act.sa_handler = handler;
  sigemptyset(&act.sa_mask);
  return sigaction(SIGSEGV, &act, NULL);
}

int main(void) {
  if (on_segv(jump_back) != 0) return 1;
  page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) return 1;
  x = 1;
  for (int i = 0; i < 3; i++) {
    if (sigsetjmp(env, 1) == 0) {
      page[i] = 1;  // faults: the handler jumps back to the sigsetjmp above
      return 2;
    }
  }
  if (on_segv(make_writable) != 0) return 1;
  page[3] = 1;  // faults once: the handler makes the page writable, the store is retried
  x = faults;
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  pthread_join(t, NULL);
  return faults == 4 && seen == 3 && y == 1 && page[3] == 1 ? 0 : 2;
}
