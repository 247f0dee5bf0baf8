/* Producer/consumer over a one-slot buffer guarded by a mutex and a condition
 * variable: 100 items, one signal per put and per take. */
#include <pthread.h>

#define ITEMS 100

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int full, slot, sum;

static void* producer(void* arg) {
  (void)arg;
  for (int i = 1; i <= ITEMS; i++) {
    pthread_mutex_lock(&mu);
    while (full) pthread_cond_wait(&changed, &mu);
    slot = i;
    full = 1;
    pthread_cond_signal(&changed);
    pthread_mutex_unlock(&mu);
  }
  return 0;
}

static void* consumer(void* arg) {
  (void)arg;
  for (int i = 1; i <= ITEMS; i++) {
    pthread_mutex_lock(&mu);
    while (!full) pthread_cond_wait(&changed, &mu);
    sum += slot;
    full = 0;
    pthread_cond_signal(&changed);
    pthread_mutex_unlock(&mu);
  }
  return 0;
}

int main(void) {
  pthread_t p, c;
  pthread_create(&p, 0, producer, 0);
  pthread_create(&c, 0, consumer, 0);
  pthread_join(p, 0);
  pthread_join(c, 0);
  return sum == ITEMS * (ITEMS + 1) / 2 ? 0 : 1;
}
