/* A vfork child that closes the parent's pipe before _exit (undefined by
   POSIX, done by real programs: openjdk's process launcher), then two threads
   hand a variable off through that pipe. The child's close() must not end the
   parent's descriptors: seer, as ThreadSanitizer, runs vfork() as fork(). */
// seer-expect: none
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int fds[2];
int data;

static void* producer(void* arg) {
  (void)arg;
  data = 42;
  if (write(fds[1], "x", 1) != 1) return NULL;
  return NULL;
}

static void* consumer(void* arg) {
  (void)arg;
  char c;
  if (read(fds[0], &c, 1) != 1) return NULL;
  data = 43;
  return NULL;
}

int main(void) {
  if (pipe(fds) != 0) return 1;
  pid_t pid = vfork();
  if (pid < 0) return 1;
  if (pid == 0) {
    close(fds[0]);
    close(fds[1]);
    _exit(0);
  }
  if (waitpid(pid, NULL, 0) != pid) return 1;
  pthread_t t[2];
  pthread_create(&t[0], NULL, producer, NULL);
  pthread_create(&t[1], NULL, consumer, NULL);
  pthread_join(t[0], NULL);
  pthread_join(t[1], NULL);
  printf("%d\n", data);
  return 0;
}
