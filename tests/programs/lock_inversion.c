/* Lock-order inversion between two threads: one takes A then B, the other B then A.
 * The second starts after the first is joined, so the run never deadlocks; the
 * trace holds the inversion a deadlock analysis predicts. */
#include <pthread.h>

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
  pthread_join(t1, 0);
  pthread_create(&t2, 0, b_then_a, 0);
  pthread_join(t2, 0);
  return shared == 2 ? 0 : 1;
}
