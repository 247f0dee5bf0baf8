/* A harmful race: main reads a pointer that a thread clears without
   synchronisation, then dereferences it. The recorded run reads first (the
   thread sleeps); when the clear goes first the program crashes. */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

static int cell = 7;
static int* shared = &cell;

static void* clear(void* arg) {
  struct timespec pause = {0, 20000000};
  nanosleep(&pause, NULL); /* orders nothing */
  shared = NULL;           /* the write */
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, clear, NULL);
  int* p = shared; /* the read */
  printf("%d\n", *p);
  pthread_join(t, NULL);
  return 0;
}
