/* A worker fills a variable and then writes one byte to a pipe; main reads the
   byte and then the variable. The kernel orders the write before the read that
   receives it (ThreadSanitizer models it): no race. race_pipe_no_handoff.c is
   the same with the variable written after the byte. */
// seer-expect: none
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

int fds[2];
int data;

static void* worker(void* arg) {
  (void)arg;
  data = 42;
  if (write(fds[1], "x", 1) != 1) return NULL;
  return NULL;
}

int main(void) {
  if (pipe(fds) != 0) return 1;
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  char c;
  if (read(fds[0], &c, 1) != 1) return 1;
  printf("%d\n", data);
  pthread_join(t, NULL);
  return 0;
}
