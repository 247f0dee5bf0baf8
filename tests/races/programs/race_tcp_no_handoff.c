/* norace_tcp_handoff.c with the stores after connect() and send(): neither is
   ordered before main's reads. */
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

#include "suite.h"

struct sockaddr_in addr;
int hello;
int data;

static void* client(void* arg) {
  (void)arg;
  int s = socket(AF_INET, SOCK_STREAM, 0);
  if (connect(s, (struct sockaddr*)&addr, sizeof addr) != 0) return NULL;
  sleep_ms(50);  // main's accept() returns first (one sync object serves every socket)
  hello = 1;     // RACE(a)
  if (send(s, "x", 1, 0) != 1) return NULL;
  data = 42;  // RACE(b)
  char c;
  if (recv(s, &c, 1, 0) != 0) return NULL;
  close(s);
  return NULL;
}

int main(void) {
  int l = socket(AF_INET, SOCK_STREAM, 0);
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  if (bind(l, (struct sockaddr*)&addr, sizeof addr) != 0 || listen(l, 1) != 0 ||
      getsockname(l, (struct sockaddr*)&addr, &len) != 0)
    return 1;
  pthread_t t;
  pthread_create(&t, NULL, client, NULL);
  int c = accept(l, NULL, NULL);
  if (c < 0) return 1;
  sleep_ms(50);
  printf("%d\n", hello);  // RACE(a)
  char b;
  if (recv(c, &b, 1, 0) != 1) return 1;
  sleep_ms(50);
  printf("%d\n", data);  // RACE(b)
  close(c);
  pthread_join(t, NULL);
  close(l);
  return 0;
}
