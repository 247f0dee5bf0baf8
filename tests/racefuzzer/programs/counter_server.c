/* seer fuzz --load (issue #34): lost_update.c's table as a server. It listens
   on 127.0.0.1 (an ephemeral port, printed on standard error: its standard
   output stays the same from run to run) and serves each
   connection in a thread, one request per line:
     incr     looks the key's item up and reads its count under the table lock,
              releases it, and writes count + 1 under the lock again;
     replace  puts a new item carrying the old count in the table and marks the
              old one dead (count -1) under the same lock;
     lost     answers "lost N": the increments that went to a dead item.
   A replacement between an increment's two steps loses the increment. The
   server runs until it is killed (SIGTERM). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct item {
  long count;
};

static struct item* table;
static struct item* dead[4096];
static int dead_count;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void Increment(void) {
  pthread_mutex_lock(&lock);
  struct item* it = table;
  long seen = it->count; /* MARK-FIRST */
  pthread_mutex_unlock(&lock);
  seen += 1;
  pthread_mutex_lock(&lock);
  it->count = seen; /* MARK-SECOND */
  pthread_mutex_unlock(&lock);
}

static void Replace(void) {
  pthread_mutex_lock(&lock);
  struct item* old = table;
  struct item* fresh = malloc(sizeof *fresh);
  fresh->count = old->count;
  old->count = -1; /* MARK-REMOTE */
  if (dead_count < 4096) dead[dead_count++] = old;
  table = fresh;
  pthread_mutex_unlock(&lock);
}

static int Lost(void) {
  pthread_mutex_lock(&lock);
  int lost = 0;
  for (int i = 0; i < dead_count; ++i) lost += dead[i]->count != -1;
  pthread_mutex_unlock(&lock);
  return lost;
}

static void* Serve(void* arg) {
  FILE* in = fdopen((int)(long)arg, "r+");
  char line[64];
  while (fgets(line, sizeof line, in) != NULL) {
    if (strncmp(line, "incr", 4) == 0) {
      Increment();
      fputs("ok\n", in);
    } else if (strncmp(line, "replace", 7) == 0) {
      Replace();
      fputs("ok\n", in);
    } else if (strncmp(line, "lost", 4) == 0) {
      fprintf(in, "lost %d\n", Lost());
    } else {
      fputs("error\n", in);
    }
    fflush(in);
  }
  fclose(in);
  return NULL;
}

int main(void) {
  table = calloc(1, sizeof *table);
  const int listener = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in addr = {0};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (listener < 0 || bind(listener, (struct sockaddr*)&addr, sizeof addr) != 0 || listen(listener, 16) != 0 ||
      getsockname(listener, (struct sockaddr*)&addr, &len) != 0) {
    perror("counter_server");
    return 2;
  }
  fprintf(stderr, "listening on %d\n", ntohs(addr.sin_port));
  for (;;) {
    const int fd = accept(listener, NULL, NULL);
    if (fd < 0) continue;
    pthread_t t;
    pthread_create(&t, NULL, Serve, (void*)(long)fd);
    pthread_detach(t);
  }
}
