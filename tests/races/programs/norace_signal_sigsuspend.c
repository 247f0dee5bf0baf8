/* main blocks SIGUSR2, raises it (it stays pending), checks that its handler
   has not run, and lets it in with sigsuspend(); the handler sets `ran`,
   which main reads after sigsuspend() returns. raise() does not run the
   handler here, sigsuspend() does: what main did before sigsuspend()
   happens before the handler, the handler before what main does after
   (ThreadSanitizer's sigsuspend.cpp). No race. */
// seer-expect: none
#include <signal.h>
#include <stdio.h>

int ran;

static void handler(int sig) {
  (void)sig;
  ran = 1;
}

int main(void) {
  if (signal(SIGUSR2, handler) == SIG_ERR) return 1;
  sigset_t usr2, old;
  sigemptyset(&usr2);
  sigaddset(&usr2, SIGUSR2);
  sigprocmask(SIG_BLOCK, &usr2, &old);
  raise(SIGUSR2);
  if (ran) return 2;  // blocked: not yet
  sigset_t all_but_usr2;
  sigfillset(&all_but_usr2);
  sigdelset(&all_but_usr2, SIGUSR2);
  sigsuspend(&all_but_usr2);
  if (!ran) return 3;
  sigprocmask(SIG_SETMASK, &old, NULL);
  printf("handled\n");
  return 0;
}
