/* What a launched program can tell about how it is recorded: it takes a lock in
 * two threads (so any uprobe on pthread_mutex_lock is hit), then prints whether
 * the kernel mapped its uprobe trampoline page ("[uprobes]": it does so in a
 * process at the first uprobe hit) and the LD_PRELOAD it was given.
 * With "exec", it then runs itself again once ("child" mode) with the same
 * environment, so the child prints what it inherited. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int counter;

static void* work(void* arg) {
  (void)arg;
  for (int i = 0; i < 100; ++i) {
    pthread_mutex_lock(&lock);
    counter++;
    pthread_mutex_unlock(&lock);
  }
  return 0;
}

static int UprobesMapped(void) {
  FILE* f = fopen("/proc/self/maps", "r");
  if (f == NULL) return -1;
  char line[512];
  int found = 0;
  while (fgets(line, sizeof line, f) != NULL)
    if (strstr(line, "[uprobes]") != NULL) found = 1;
  fclose(f);
  return found;
}

int main(int argc, char** argv) {
  const int child = argc > 1 && strcmp(argv[1], "child") == 0;
  pthread_t t1, t2;
  pthread_create(&t1, 0, work, 0);
  pthread_create(&t2, 0, work, 0);
  pthread_join(t1, 0);
  pthread_join(t2, 0);
  const char* preload = getenv("LD_PRELOAD");
  printf("%suprobes_mapped=%d\n", child ? "child " : "", UprobesMapped());
  printf("%sld_preload=%s\n", child ? "child " : "", preload != NULL ? preload : "");
  fflush(stdout);
  if (argc > 1 && strcmp(argv[1], "exec") == 0) {
    execl("/proc/self/exe", argv[0], "child", (char*)0);
    return 3;
  }
  return counter == 200 ? 0 : 1;
}
