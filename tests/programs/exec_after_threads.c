/* Two threads each take a mutex 10 times; once they are joined, main replaces the
 * program with exec: `exec_after_threads PROGRAM ARGS...` runs PROGRAM. With
 * `--from-thread PROGRAM ARGS...` a third thread calls exec while main waits to
 * join it (the kernel ends main; the exec'ing thread takes the process's pid). */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int counter;

static void* worker(void* arg) {
  (void)arg;
  for (int i = 0; i < 10; i++) {
    pthread_mutex_lock(&mu);
    counter++;
    pthread_mutex_unlock(&mu);
  }
  return 0;
}

static char** exec_argv;

static void* exec_from_thread(void* arg) {
  (void)arg;
  execv(exec_argv[0], exec_argv);
  perror("exec_after_threads: execv");
  _exit(127);
}

int main(int argc, char** argv) {
  int from_thread = argc > 1 && strcmp(argv[1], "--from-thread") == 0;
  exec_argv = argv + 1 + from_thread;
  if (argc < 2 + from_thread) {
    fprintf(stderr, "usage: exec_after_threads [--from-thread] PROGRAM ARGS...\n");
    return 2;
  }
  pthread_t t[2];
  for (int i = 0; i < 2; i++) pthread_create(&t[i], 0, worker, 0);
  for (int i = 0; i < 2; i++) pthread_join(t[i], 0);
  if (counter != 20) return 1;
  if (from_thread) {
    pthread_t e;
    pthread_create(&e, 0, exec_from_thread, 0);
    pthread_join(e, 0);
    return 1; /* not reached: the exec ends this program */
  }
  execv(exec_argv[0], exec_argv);
  perror("exec_after_threads: execv");
  return 127;
}
