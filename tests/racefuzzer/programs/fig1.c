/* RaceFuzzer (Sen, PLDI 2008), Fig. 1. Statements 5 and 7 race on z (real:
   ERROR1 is printed when 7 runs first); statements 1 and 10 look racy to a
   lockset (hybrid) detector but are ordered through y under L: never a race. */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

int x, y, z;
pthread_mutex_t L = PTHREAD_MUTEX_INITIALIZER;

static void* thread1(void* arg) {
  x = 1; /* statement 1 */
  pthread_mutex_lock(&L);
  y = 1;
  pthread_mutex_unlock(&L);
  if (z == 1) /* statement 5 */
    printf("ERROR1\n");
  return arg;
}

static void* thread2(void* arg) {
  /* Orders nothing: makes the recorded run, and the unscheduled run seer fuzz
     compares with, take thread1's statements first. 100 ms, not 20: on a
     loaded machine thread1 came later than 20 ms now and then, the reference
     run printed ERROR1, and the same seed was harmful in one seer fuzz and not
     in the next. (Under the scheduler the sleep takes no time.) */
  struct timespec pause = {0, 100000000};
  nanosleep(&pause, NULL);
  z = 1; /* statement 7 */
  pthread_mutex_lock(&L);
  if (y == 1) {
    if (x != 1) /* statement 10 */
      printf("ERROR2\n");
  }
  pthread_mutex_unlock(&L);
  return arg;
}

int main(void) {
  pthread_t t1, t2;
  pthread_create(&t1, NULL, thread1, NULL);
  pthread_create(&t2, NULL, thread2, NULL);
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  return 0;
}
