/* A worker sends main SIGUSR1 while main waits in pause(); main's handler
   leaves by siglongjmp, back to main's sigsetjmp. The handler's events go to
   main's signal ring (the signal came from elsewhere); the trampoline never
   returns, so the runtime's siglongjmp hands main back its own ring and orders
   the handler before the code the jump lands in. Without that, main's write
   of `x` after the jump was recorded as the handlers' thread and raced with
   its write before the signal. No race. */
// seer-expect: none
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <unistd.h>

static sigjmp_buf env;
static pthread_t main_thread;
int x;
int ready;  // relaxed atomic accesses only

static void jump_back(int sig) {
  (void)sig;
  siglongjmp(env, 1);
}

static void* worker(void* arg) {
  (void)arg;
  while (!__atomic_load_n(&ready, __ATOMIC_RELAXED)) {
  }
  pthread_kill(main_thread, SIGUSR1);
  return NULL;
}

int main(void) {
  struct sigaction act = {0};
  act.sa_handler = jump_back;
  sigemptyset(&act.sa_mask);
  if (sigaction(SIGUSR1, &act, NULL) != 0) return 1;
  main_thread = pthread_self();
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  x = 1;
  if (sigsetjmp(env, 1) == 0) {
    __atomic_store_n(&ready, 1, __ATOMIC_RELAXED);
    for (;;) pause();
  }
  x = 2;
  pthread_join(t, NULL);
  return x == 2 ? 0 : 2;
}
