/* Raw futex handoffs around a pause of the recording (the service's duty
 * cycle), in steps the test drives through files in DIR (argv[1]):
 *   1. main wakes worker A three times through syscall(SYS_futex) (built as
 *      futex_pause_insn: the syscall instruction itself, test_futex.h);
 *   2. writes DIR/ready1 and waits for DIR/paused (the test has paused the
 *      recording); three more handoffs to A, then starts worker B, whose
 *      first FUTEX_WAIT begins in the pause; writes DIR/ready2 and waits for
 *      DIR/resumed;
 *   3. main wakes B three times.
 * In each handoff the waiter sleeps in FUTEX_WAIT until main (50 ms later)
 * stores the round number and issues one FUTEX_WAKE. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

#include "test_futex.h"

static _Atomic int word_a, word_b;
static const char* dir;

static void* waiter(void* arg) {
  _Atomic int* word = arg;
  wait_rounds(word, 1, word == &word_a ? 6 : 3);
  return 0;
}

static void step(const char* done, const char* wait_for) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, done);
  FILE* f = fopen(path, "w");
  if (f) fclose(f);
  snprintf(path, sizeof path, "%s/%s", dir, wait_for);
  while (access(path, F_OK) != 0) usleep(5000);
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: futex_pause DIR\n");
    return 2;
  }
  dir = argv[1];
  pthread_t a, b;
  pthread_create(&a, 0, waiter, &word_a);
  wake_rounds(&word_a, 1, 3, 50000);
  step("ready1", "paused");
  wake_rounds(&word_a, 4, 6, 50000);
  pthread_create(&b, 0, waiter, &word_b);
  usleep(50000);
  step("ready2", "resumed");
  wake_rounds(&word_b, 1, 3, 50000);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;
}
