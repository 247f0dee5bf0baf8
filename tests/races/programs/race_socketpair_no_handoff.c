/* norace_socketpair_handoff.c with each store after the send that should have
   published it: both variables race. */
#include <pthread.h>
#include <stdio.h>
#include <sys/socket.h>

#include "suite.h"

int sv[2];
int request;
int reply;

static void* worker(void* arg) {
  (void)arg;
  char c;
  if (recv(sv[1], &c, 1, 0) != 1) return NULL;
  sleep_ms(50);
  int r = request;  // RACE(a)
  if (send(sv[1], &c, 1, 0) != 1) return NULL;
  reply = r + 1;  // RACE(b)
  return NULL;
}

int main(void) {
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) return 1;
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  if (send(sv[0], "x", 1, 0) != 1) return 1;
  request = 41;  // RACE(a)
  char c;
  if (recv(sv[0], &c, 1, 0) != 1) return 1;
  sleep_ms(50);
  printf("%d\n", reply);  // RACE(b)
  pthread_join(t, NULL);
  return 0;
}
