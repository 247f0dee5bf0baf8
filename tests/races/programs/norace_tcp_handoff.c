/* A localhost TCP connection: the client thread fills `hello` before connect()
   (connect happens before the accept that meets it) and `data` before send()
   (a send happens before the recv that receives it); main reads `hello` after
   accept() and `data` after recv(). race_tcp_no_handoff.c moves both stores
   after the calls. */
// seer-expect: none
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

struct sockaddr_in addr;
int hello;
int data;

static void* client(void* arg) {
  (void)arg;
  int s = socket(AF_INET, SOCK_STREAM, 0);
  hello = 1;
  if (connect(s, (struct sockaddr*)&addr, sizeof addr) != 0) return NULL;
  data = 42;
  if (send(s, "x", 1, 0) != 1) return NULL;
  char c;
  if (recv(s, &c, 1, 0) != 0) return NULL;  // main closed: end of stream
  close(s);
  return NULL;
}

int main(void) {
  int l = socket(AF_INET, SOCK_STREAM, 0);
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;  // a free port
  socklen_t len = sizeof addr;
  if (bind(l, (struct sockaddr*)&addr, sizeof addr) != 0 || listen(l, 1) != 0 ||
      getsockname(l, (struct sockaddr*)&addr, &len) != 0)
    return 1;
  pthread_t t;
  pthread_create(&t, NULL, client, NULL);
  int c = accept(l, NULL, NULL);
  if (c < 0) return 1;
  printf("%d\n", hello);
  char b;
  if (recvfrom(c, &b, 1, 0, NULL, NULL) != 1) return 1;
  printf("%d\n", data);
  close(c);
  pthread_join(t, NULL);
  close(l);
  return 0;
}
