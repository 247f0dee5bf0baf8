/* Hand-off through a socketpair, both ways: main fills `request` and sends a
   byte, the worker receives it, reads the request, fills `reply` and sends a
   byte back with sendmsg; main receives it with recvmsg and reads the reply.
   race_socketpair_no_handoff.c is the same with each store after its send. */
// seer-expect: none
#include <pthread.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/uio.h>

int sv[2];
int request;
int reply;

static void* worker(void* arg) {
  (void)arg;
  char c;
  if (recv(sv[1], &c, 1, 0) != 1) return NULL;
  reply = request + 1;
  struct iovec iov = {&c, 1};
  struct msghdr msg = {0};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  if (sendmsg(sv[1], &msg, 0) != 1) return NULL;
  return NULL;
}

int main(void) {
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) return 1;
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  request = 41;
  if (send(sv[0], "x", 1, 0) != 1) return 1;
  char c;
  struct iovec iov = {&c, 1};
  struct msghdr msg = {0};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  if (recvmsg(sv[0], &msg, 0) != 1) return 1;
  printf("%d\n", reply);
  pthread_join(t, NULL);
  return 0;
}
