// Report test program: a worker reads from a pipe while main closes the pipe's
// read end, nothing ordering them. The race is on the descriptor itself, and
// the report names it as such: "file descriptor N", created at the pipe() line.
// Prints N.
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static int fds[2];

static void* Worker(void* arg) {
  char c;
  if (read(fds[0], &c, 1) != 1) return NULL;  // MARK-READ
  return arg;
}

int main(void) {
  if (pipe(fds) != 0) return 1;  // MARK-PIPE
  printf("%d\n", fds[0]);
  fflush(stdout);
  if (write(fds[1], "x", 1) != 1) return 1;
  pthread_t t;
  pthread_create(&t, NULL, Worker, NULL);
  usleep(50000);
  close(fds[0]);  // MARK-CLOSE
  pthread_join(t, NULL);
  return 0;
}
