/* memcpy into the first half of a buffer and memset of the second half, on two
   threads: the ranges touch but do not overlap. */
// seer-expect: none
#include <pthread.h>
#include <stdio.h>
#include <string.h>

char buf[64];
char src[32] = "0123456789abcdefghijklmnopqrstu";
size_t half = 32;

static void* worker(void* arg) {
  memcpy(buf, src, half);
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  memset(buf + half, '-', half);
  pthread_join(t, NULL);
  printf("%.64s\n", buf);
  return 0;
}
