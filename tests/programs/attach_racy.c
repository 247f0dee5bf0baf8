/* Built with seer-cc, run by tests/recorder/attach_test.cc, which attaches to it
 * with `seer record -p PID`. Prints its pid, then kWorkers threads loop until
 * told to stop: each takes a lock to add to a counter (no race), then increments
 * `racy` without one (the race, marked RACE); a worker holds the lock most of
 * the time, so the recorder attaches inside a critical section whose lock it
 * did not see taken. Main reads commands on stdin:
 * "stop" makes every worker write a burst of kBurstWrites words (enough to fill
 * its ring several times: a target still waiting for a detached or dead
 * recorder would stall for the runtime's wait), then end; main joins them and
 * exits 0. "stop N" makes the burst N words. "fork" forks a child that
 * sleeps until killed, and prints its pid.
 * Argument "close-fds": closes every descriptor above 2 first, the runtime's
 * attach point with them. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

enum { kWorkers = 3, kBurstWrites = 1 << 22, kScratch = 4096 };

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static long counter;
static long racy;
static atomic_int stop;
static long scratch[kWorkers][kScratch];
static long burst = kBurstWrites; /* written before `stop` is set, read after */

static void* worker(void* arg) {
  long* mine = scratch[(long)arg];
  while (!atomic_load(&stop)) {
    pthread_mutex_lock(&mu);
    counter++;
    usleep(100); /* most of the time in the lock: the recorder attaches inside */
    pthread_mutex_unlock(&mu);
    racy++; /* RACE */
  }
  for (long i = 0; i < burst; ++i) mine[i & (kScratch - 1)] = i;
  return NULL;
}

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "close-fds") == 0)
    for (int fd = 3; fd < 1024; ++fd) close(fd);
  pthread_t t[kWorkers];
  for (long i = 0; i < kWorkers; ++i) pthread_create(&t[i], NULL, worker, (void*)i);
  printf("%d\n", (int)getpid());
  fflush(stdout);
  char line[64];
  while (fgets(line, sizeof(line), stdin) != NULL) {
    if (strncmp(line, "stop", 4) == 0) {
      long n;
      if (sscanf(line + 4, "%ld", &n) == 1 && n >= 0) burst = n;
      break;
    }
    if (strncmp(line, "fork", 4) == 0) {
      const pid_t child = fork();
      if (child == 0)
        for (;;) pause();
      printf("%d\n", (int)child);
      fflush(stdout);
    }
  }
  atomic_store(&stop, 1);
  for (int i = 0; i < kWorkers; ++i) pthread_join(t[i], NULL);
  printf("counter %ld\n", counter);
  return 0;
}
