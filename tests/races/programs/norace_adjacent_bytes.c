/* Two threads write different bytes of one word (chars of a struct, and halves of a
   32-bit word through a union): the bytes do not overlap, so no race. */
// seer-expect: none
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "suite.h"

struct flags {
  char a, b, c, d;
};
struct flags f;
union halves {
  uint32_t word;
  uint16_t half[2];
};
union halves h;

static void* worker(void* arg) {
  for (int i = 0; i < 10; ++i) {
    f.b = (char)i;
    f.d = (char)i;
    h.half[1] = (uint16_t)i;
  }
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  for (int i = 0; i < 10; ++i) {
    f.a = (char)i;
    f.c = (char)i;
    h.half[0] = (uint16_t)i;
  }
  pthread_join(t, NULL);
  printf("%d %d %d %d %u\n", f.a, f.b, f.c, f.d, h.word);
  return 0;
}
