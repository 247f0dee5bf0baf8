/* A thread fills a buffer with memcpy (an interposed libc call); main reads one byte
   of it. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "suite.h"

char buf[64];
char src[64] = "the quick brown fox";
size_t copy_len = sizeof buf;

static void* worker(void* arg) {
  memcpy(buf, src, copy_len);  // RACE(a)
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  sleep_ms(10);
  printf("%c\n", buf[10]);  // RACE(a)
  pthread_join(t, NULL);
  return 0;
}
