/* Lock-order inversion between two threads that run at the same time: one takes
 * A then B, the other (after a pause, so that this run never deadlocks) B then
 * A. Nothing but the pause orders the two critical sections, so the deadlock
 * analysis predicts the deadlock another schedule hits (lock_inversion.c joins
 * the first thread before starting the second: no schedule deadlocks there). */
#include <pthread.h>
#include <time.h>

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
static int shared;

static void* a_then_b(void* arg) {
  (void)arg;
  pthread_mutex_lock(&a);
  pthread_mutex_lock(&b);
  shared++;
  pthread_mutex_unlock(&b);
  pthread_mutex_unlock(&a);
  return 0;
}

static void* b_then_a(void* arg) {
  (void)arg;
  const struct timespec pause = {0, 100 * 1000 * 1000};
  nanosleep(&pause, 0);
  pthread_mutex_lock(&b);
  pthread_mutex_lock(&a);
  shared++;
  pthread_mutex_unlock(&a);
  pthread_mutex_unlock(&b);
  return 0;
}

int main(void) {
  pthread_t t1, t2;
  pthread_create(&t1, 0, a_then_b, 0);
  pthread_create(&t2, 0, b_then_a, 0);
  pthread_join(t1, 0);
  pthread_join(t2, 0);
  return shared == 2 ? 0 : 1;
}
