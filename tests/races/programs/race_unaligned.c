/* An unaligned 4-byte field of a packed struct (bytes 1-4) written by a thread,
   and byte 3 written by main: they overlap. Byte 0 and byte 5, each written by one
   thread, do not race. */
#include <pthread.h>
#include <stdio.h>

#include "suite.h"

struct __attribute__((packed)) frame {
  char kind;
  int length;
  char pad[3];
};
struct frame f;

static void* worker(void* arg) {
  f.length = 100;  // RACE(a)
  f.kind = 'w';
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  f.pad[0] = 1;
  sleep_ms(10);
  unsigned char* raw = (unsigned char*)&f;
  raw[3] = 1;  // RACE(a)
  pthread_join(t, NULL);
  printf("%d %c %d\n", f.length, f.kind, f.pad[0]);
  return 0;
}
