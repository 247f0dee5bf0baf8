/* main arms a periodic timer and waits in pause() until the handler, from
   its fourth run on, sets `done` (a release); each run then counts itself in
   `ticks`, after that store. main disarms the timer and then reads and resets
   `ticks`. The handler runs on main, so every run of it ended before
   setitimer() returned: ordered, though no release follows the count
   (ThreadSanitizer's signal_block2.cpp). No race. (main waits in pause(), not
   in a spin on `done`: a handler's atomic on an address whose atomic the
   interrupted code is inside is not recorded, only counted lost; runtime.md,
   "Limitations".) */
// seer-expect: none
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

int ticks;
int done;

static void handler(int sig) {
  (void)sig;
  if (ticks >= 3) __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
  ticks++;
}

int main(void) {
  struct sigaction act;
  memset(&act, 0, sizeof act);
  act.sa_handler = handler;
  sigemptyset(&act.sa_mask);
  if (sigaction(SIGALRM, &act, NULL) != 0) return 1;
  ticks = 0;
  struct itimerval timer = {{0, 1000}, {0, 1000}};
  if (setitimer(ITIMER_REAL, &timer, NULL) != 0) return 1;
  while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) pause();
  memset(&timer, 0, sizeof timer);
  setitimer(ITIMER_REAL, &timer, NULL);
  printf("%d ticks\n", ticks);
  ticks = 0;
  return 0;
}
