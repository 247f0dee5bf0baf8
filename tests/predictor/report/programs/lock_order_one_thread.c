// Report test program: ThreadSanitizer's lock-order inversion in one thread. The
// thread takes A then B, and later B then A; no second thread runs either path,
// so this run cannot deadlock and the deadlock analysis (rightly) predicts
// nothing. Two threads running the two paths at once could: the report names
// it as a lock-order inversion with its four lines.
#include <pthread.h>

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
static long moves;

static void* Worker(void* arg) {
  pthread_mutex_lock(&a);  // MARK-A-HELD
  pthread_mutex_lock(&b);  // MARK-B-TAKEN
  moves++;
  pthread_mutex_unlock(&b);
  pthread_mutex_unlock(&a);

  pthread_mutex_lock(&b);  // MARK-B-HELD
  pthread_mutex_lock(&a);  // MARK-A-TAKEN
  moves++;
  pthread_mutex_unlock(&a);
  pthread_mutex_unlock(&b);
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, Worker, NULL);
  pthread_join(t, NULL);
  return moves == 2 ? 0 : 1;
}
