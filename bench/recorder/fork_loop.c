// A process that forks N children one after another, each exiting at once,
// and waits for each: what following a program's processes costs a fork
// (bench/recorder/fork_cost.sh). Usage: fork_loop N
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 100;
  for (int i = 0; i < n; ++i) {
    const pid_t child = fork();
    if (child < 0) return 1;
    if (child == 0) _exit(0);
    if (waitpid(child, NULL, 0) != child) return 1;
  }
  return 0;
}
