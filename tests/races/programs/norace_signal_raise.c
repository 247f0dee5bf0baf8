/* main writes a variable, raises SIGUSR1 and reads the variable after raise()
   returns; the handler, which runs inside raise(), increments it. seer records
   a handler on a ring of its own (a thread of its own in the trace), but raise()
   delivers the signal before it returns: the write before it happens before the
   handler, and the handler before the read after it, as ThreadSanitizer has it
   (it runs a handler in the interrupted thread's context). No race. */
// seer-expect: none
#include <signal.h>
#include <stdio.h>

int value;

static void handler(int sig) {
  (void)sig;
  value++;
}

int main(void) {
  struct sigaction act = {0};
  act.sa_handler = handler;
  sigemptyset(&act.sa_mask);
  if (sigaction(SIGUSR1, &act, NULL) != 0) return 1;
  value = 41;
  if (raise(SIGUSR1) != 0) return 1;
  printf("%d\n", value);
  return value == 42 ? 0 : 1;
}
