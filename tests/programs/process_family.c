// The processes of a recorded program (docs/recording.md, "Processes"):
//   process_family fork       forks; the child runs `worker`'s race; the parent waits for it
//   process_family exec       forks; the child execs this program as `worker`
//   process_family exec-bare  forks; the child execs /bin/sleep with an empty
//                             environment, where no runtime can follow it
//   process_family worker     two threads increment a counter without a lock (the race)
// The parent's own threads take a lock around each increment: its trace has no race.
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static long counter;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void* bump_racy(void* arg) {
  (void)arg;
  for (int i = 0; i < 1000; i++) counter++;  // the race, in the child
  return NULL;
}

static void* bump_locked(void* arg) {
  (void)arg;
  for (int i = 0; i < 1000; i++) {
    pthread_mutex_lock(&lock);
    counter++;
    pthread_mutex_unlock(&lock);
  }
  return NULL;
}

static void two_threads(void* (*body)(void*)) {
  pthread_t a, b;
  pthread_create(&a, NULL, body, NULL);
  pthread_create(&b, NULL, body, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
}

int main(int argc, char** argv) {
  const char* what = argc > 1 ? argv[1] : "fork";
  if (strcmp(what, "worker") == 0) {
    two_threads(bump_racy);
    printf("worker %ld\n", counter);
    return 0;
  }
  two_threads(bump_locked);
  fflush(stdout);
  const pid_t child = fork();
  if (child < 0) return 2;
  if (child == 0) {
    if (strcmp(what, "exec") == 0) {
      execl("/proc/self/exe", argv[0], "worker", (char*)NULL);
      _exit(127);
    }
    if (strcmp(what, "exec-bare") == 0) {
      char* const args[] = {"sleep", "0.5", NULL};
      char* const env[] = {NULL};
      execve("/bin/sleep", args, env);
      _exit(127);
    }
    two_threads(bump_racy);
    printf("child %ld\n", counter);
    fflush(stdout);
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  printf("parent %ld, child exit %d\n", counter, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
