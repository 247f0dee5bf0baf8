/* seer fuzz replay (issue #34): a race whose outcome the kernel's timing
   decides, not only the seed. Two workers wait for main's go on pipes (calls
   the scheduler does not model: which worker comes back first is timing),
   then one writes `x` and the other reads it. When the read sees the write,
   the reader clears the pointer main then writes through: a crash. Under the
   scheduler the first worker at its statement is postponed, and the seed's
   coin lets one go first when the other arrives: the same coin crashes the
   program or not depending on which worker came back first. A replay that
   follows the run's logged timing events crashes every time. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <unistd.h>

static int go_a[2], go_b[2];
static int x;
static int value;
static int* volatile target = &value;

static void* Writer(void* arg) {
  char c;
  if (read(go_a[0], &c, 1) != 1) return arg;
  x = 1; /* MARK-WRITE */
  return arg;
}

static void* Reader(void* arg) {
  char c;
  if (read(go_b[0], &c, 1) != 1) return arg;
  if (x == 1) /* MARK-READ */
    target = NULL;
  return arg;
}

int main(void) {
  if (pipe(go_a) != 0 || pipe(go_b) != 0) return 2;
  pthread_t a, b;
  pthread_create(&a, NULL, Writer, NULL);
  pthread_create(&b, NULL, Reader, NULL);
  usleep(20000); /* both workers wait in read: the recorded run has them concurrent */
  /* The reader's go first, the writer's later: unscheduled, the read never
     sees the write (no crash). */
  if (write(go_b[1], "g", 1) != 1) return 2;
  usleep(10000);
  if (write(go_a[1], "g", 1) != 1) return 2;
  /* Scheduling points while both come back: the first at its statement waits
     for the other instead of being let go because nobody else could run. */
  for (int i = 0; i < 200; ++i) {
    for (volatile int spin = 0; spin < 20000; ++spin) {
    }
    sched_yield();
  }
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  *target = 1;
  printf("done\n");
  return 0;
}
