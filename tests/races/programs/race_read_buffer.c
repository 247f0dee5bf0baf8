/* libc's own accesses: read() writes the bytes it returns into the caller's
   buffer, and write() reads the bytes it sends; a store into the same buffer by
   another thread races with them though no instrumented code touches it in
   libc (ThreadSanitizer's interceptors record both). */
#include <pthread.h>
#include <unistd.h>

#include "suite.h"

int fds[2];
char in[4];
char out[4] = "abc";

static void* worker(void* arg) {
  (void)arg;
  if (read(fds[0], in, 4) != 4) return NULL;    // RACE(a)
  if (write(fds[1], out, 4) != 4) return NULL;  // RACE(b)
  return NULL;
}

int main(void) {
  if (pipe(fds) != 0) return 1;
  if (write(fds[1], "xyz", 4) != 4) return 1;
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  sleep_ms(50);
  in[1] = 'q';   // RACE(a)
  out[2] = 'q';  // RACE(b)
  pthread_join(t, NULL);
  return 0;
}
