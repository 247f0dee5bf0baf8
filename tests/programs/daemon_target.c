/* A small always-running service for the `seer daemon` tests, with the same
 * threads all its life (as a service's pool): for as long as it runs (or
 * argv[1] seconds)
 *   - two workers take the lock `hot` and hold it for 200 us, so that each
 *     often finds it busy and waits (lock_wait events);
 *   - two other threads take `first` then `second`, and `second` then
 *     `first`, in turns every 10 ms. The turns are handed over with a flag the
 *     recorder does not see (relaxed atomics), so nothing in the trace orders
 *     the two: this run never deadlocks, another schedule does, and the
 *     deadlock analysis predicts it. */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static pthread_mutex_t hot = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t first = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t second = PTHREAD_MUTEX_INITIALIZER;
static long counter;
static int turn; /* whose turn at the inversion: relaxed atomics, not in the trace */

static void* hammer(void* arg) {
  (void)arg;
  for (;;) {
    pthread_mutex_lock(&hot);
    counter++;
    usleep(200);
    pthread_mutex_unlock(&hot);
    usleep(50);
  }
  return 0;
}

static void WaitTurn(int mine) {
  while (__atomic_load_n(&turn, __ATOMIC_RELAXED) != mine) usleep(1000);
}

static void* first_then_second(void* arg) {
  (void)arg;
  for (;;) {
    WaitTurn(0);
    pthread_mutex_lock(&first);
    pthread_mutex_lock(&second);
    counter++;
    pthread_mutex_unlock(&second);
    pthread_mutex_unlock(&first);
    usleep(10000);
    __atomic_store_n(&turn, 1, __ATOMIC_RELAXED);
  }
  return 0;
}

static void* second_then_first(void* arg) {
  (void)arg;
  for (;;) {
    WaitTurn(1);
    pthread_mutex_lock(&second);
    pthread_mutex_lock(&first);
    counter++;
    pthread_mutex_unlock(&first);
    pthread_mutex_unlock(&second);
    usleep(10000);
    __atomic_store_n(&turn, 0, __ATOMIC_RELAXED);
  }
  return 0;
}

int main(int argc, char** argv) {
  pthread_t t[4];
  pthread_create(&t[0], 0, hammer, 0);
  pthread_create(&t[1], 0, hammer, 0);
  pthread_create(&t[2], 0, first_then_second, 0);
  pthread_create(&t[3], 0, second_then_first, 0);
  if (argc > 1) {
    usleep((useconds_t)(atof(argv[1]) * 1e6));
    exit(0);
  }
  pthread_join(t[0], 0);
  return 0;
}
