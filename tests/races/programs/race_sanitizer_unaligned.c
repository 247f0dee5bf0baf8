/* Code built for the sanitizers reads and writes unaligned words through
   __sanitizer_unaligned_load32 / _store32 (<sanitizer/common_interface_defs.h>)
   instead of dereferencing: the runtime defines them as ThreadSanitizer does,
   the access, then the copy. A worker stores bytes 1-4 of a buffer, main loads
   them, nothing ordering the two (ThreadSanitizer's unaligned_race.cpp). */
#include <pthread.h>
#include <stdint.h>

#include "suite.h"

uint32_t __sanitizer_unaligned_load32(const void* p);
void __sanitizer_unaligned_store32(void* p, uint32_t x);

unsigned char buffer[16];

static void* worker(void* arg) {
  __sanitizer_unaligned_store32(buffer + 1, 0x01020304u);  // RACE(a)
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  sleep_ms(10);
  const uint32_t seen = __sanitizer_unaligned_load32(buffer + 1);  // RACE(a)
  pthread_join(t, NULL);
  return seen == 0x01020304u || seen == 0 ? 0 : 2;
}
