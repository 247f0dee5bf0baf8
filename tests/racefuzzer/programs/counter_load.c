/* The load for counter_server.c (not instrumented): two clients at once, one
   sending increments, the other replacements, then a third connection asks how
   many increments were lost and prints the answer.
   Usage: counter_load PORT [INCREMENTS] [REPLACEMENTS] */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int port;

static FILE* Connect(void) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in addr = {0};
  addr.sin_family = AF_INET;
  addr.sin_port = htons((unsigned short)port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || connect(fd, (struct sockaddr*)&addr, sizeof addr) != 0) {
    perror("counter_load: connect");
    exit(2);
  }
  return fdopen(fd, "r+");
}

struct client {
  const char* request;
  int times;
  useconds_t pause_us;
};

static void* Run(void* arg) {
  const struct client* c = arg;
  FILE* s = Connect();
  char line[64];
  for (int i = 0; i < c->times; ++i) {
    fprintf(s, "%s\n", c->request);
    fflush(s);
    if (fgets(line, sizeof line, s) == NULL) exit(3);
    if (c->pause_us) usleep(c->pause_us);
  }
  fclose(s);
  return NULL;
}

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  port = atoi(argv[1]);
  struct client incr = {"incr", argc > 2 ? atoi(argv[2]) : 20, 2000};
  struct client replace = {"replace", argc > 3 ? atoi(argv[3]) : 20, 2000};
  pthread_t a, b;
  pthread_create(&a, NULL, Run, &incr);
  pthread_create(&b, NULL, Run, &replace);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  FILE* s = Connect();
  char line[64];
  fputs("lost\n", s);
  fflush(s);
  if (fgets(line, sizeof line, s) == NULL) return 3;
  fputs(line, stdout);
  return 0;
}
