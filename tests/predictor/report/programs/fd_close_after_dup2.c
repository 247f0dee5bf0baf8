// Report test program: main makes a descriptor name another pipe with dup2();
// a worker, ordered with main by nothing but time, closes it. dup2's creation
// of the descriptor reads it, so the close races with the creation, and the
// report says so: "Creation" of file descriptor N, created at the dup2() line.
// Prints N.
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static int fds[2];
static int other[2];

static void* Worker(void* arg) {
  usleep(50000);
  close(fds[1]);  // MARK-CLOSE
  return arg;
}

int main(void) {
  if (pipe(fds) != 0 || pipe(other) != 0) return 1;
  printf("%d\n", fds[1]);
  fflush(stdout);
  pthread_t t;
  pthread_create(&t, NULL, Worker, NULL);
  if (dup2(other[1], fds[1]) != fds[1]) return 1;  // MARK-DUP2
  pthread_join(t, NULL);
  return 0;
}
