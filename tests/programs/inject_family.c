/* A running program whose forked children `seer record -p` follows
 * (tests/recorder/inject_test.cc, docs/recording.md "Processes"). Prints its
 * pid, then reads commands on stdin:
 * "fork" forks a child whose two threads race (each read()s /dev/zero into
 * `shared` without a lock: the injected runtime sees the buffers of read as
 * writes; the program's own loads and stores it does not see) and count under
 * a lock; the child prints "child PID ok TOTAL" (TOTAL: 2 * kRounds) and
 * exits 0; the parent waits for it and prints "forked PID STATUS".
 * "fork-long MARKER" forks a child whose two threads count under a lock until
 * the file MARKER exists; the child prints "child PID running" once it runs
 * and "child PID ok TOTAL SUM" (equal when no increment was lost) at its end;
 * the parent prints "started PID" and goes on. "reap" waits for that child
 * and prints "reaped PID STATUS".
 * "fork-exec" forks a child that execs /bin/sleep 1; the parent waits and
 * prints "exec'd PID STATUS".
 * "stop" prints "bye" and exits 0. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { kRounds = 1000 };

static pthread_mutex_t count_lock = PTHREAD_MUTEX_INITIALIZER;
static long total;
static long shared;  // the race: written by both threads' read()s
static int zero_fd = -1;
static char marker[300];

static void pause_us(long us) {
  const struct timespec t = {0, us * 1000};
  nanosleep(&t, 0);
}

static void* fill_racy(void* arg) {
  (void)arg;
  for (int i = 0; i < kRounds; ++i)
    if (read(zero_fd, &shared, sizeof shared) != (ssize_t)sizeof shared) return (void*)1;
  for (int i = 0; i < kRounds; ++i) {
    pthread_mutex_lock(&count_lock);
    ++total;
    pthread_mutex_unlock(&count_lock);
  }
  return 0;
}

static void* count_until_marker(void* arg) {
  long* mine = arg;
  while (access(marker, F_OK) != 0) {
    for (int i = 0; i < 100; ++i) {
      pthread_mutex_lock(&count_lock);
      ++total;
      pthread_mutex_unlock(&count_lock);
      ++*mine;
    }
    pause_us(1000);
  }
  return 0;
}

static void racing_child(void) {
  zero_fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
  pthread_t a, b;
  pthread_create(&a, 0, fill_racy, 0);
  pthread_create(&b, 0, fill_racy, 0);
  void* ra = 0;
  void* rb = 0;
  pthread_join(a, &ra);
  pthread_join(b, &rb);
  printf("child %d %s %ld\n", (int)getpid(), ra == 0 && rb == 0 ? "ok" : "failed", total);
  fflush(stdout);
  _exit(ra == 0 && rb == 0 && total == 2 * kRounds ? 0 : 1);
}

static void long_child(void) {
  pthread_t a, b;
  long counts[2] = {0, 0};
  pthread_create(&a, 0, count_until_marker, &counts[0]);
  pthread_create(&b, 0, count_until_marker, &counts[1]);
  printf("child %d running\n", (int)getpid());
  fflush(stdout);
  pthread_join(a, 0);
  pthread_join(b, 0);
  printf("child %d ok %ld %ld\n", (int)getpid(), total, counts[0] + counts[1]);
  fflush(stdout);
  _exit(total == counts[0] + counts[1] ? 0 : 1);
}

int main(void) {
  setvbuf(stdout, 0, _IOLBF, 0);
  printf("%d\n", (int)getpid());
  char line[300];
  pid_t long_pid = -1;
  while (fgets(line, sizeof line, stdin) != 0) {
    line[strcspn(line, "\n")] = '\0';
    fflush(stdout);
    if (strcmp(line, "fork") == 0) {
      const pid_t child = fork();
      if (child == 0) racing_child();
      int status = -1;
      waitpid(child, &status, 0);
      printf("forked %d %d\n", (int)child, WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
    } else if (strncmp(line, "fork-long ", 10) == 0) {
      snprintf(marker, sizeof marker, "%s", line + 10);
      long_pid = fork();
      if (long_pid == 0) long_child();
      printf("started %d\n", (int)long_pid);
    } else if (strcmp(line, "reap") == 0) {
      int status = -1;
      waitpid(long_pid, &status, 0);
      printf("reaped %d %d\n", (int)long_pid, WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
    } else if (strcmp(line, "fork-exec") == 0) {
      const pid_t child = fork();
      if (child == 0) {
        execl("/bin/sleep", "sleep", "1", (char*)0);
        _exit(127);
      }
      int status = -1;
      waitpid(child, &status, 0);
      printf("exec'd %d %d\n", (int)child, WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
    } else if (strcmp(line, "stop") == 0) {
      break;
    }
  }
  printf("bye\n");
  return 0;
}
