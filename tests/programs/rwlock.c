/* Reader/writer lock: 4 threads, each 100 read sections and 10 write sections. */
#include <pthread.h>

static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static int value, seen;

static void* worker(void* arg) {
  (void)arg;
  for (int i = 0; i < 100; i++) {
    pthread_rwlock_rdlock(&rw);
    seen += value > 0;
    pthread_rwlock_unlock(&rw);
    if (i % 10 == 0) {
      pthread_rwlock_wrlock(&rw);
      value++;
      pthread_rwlock_unlock(&rw);
    }
  }
  return 0;
}

int main(void) {
  pthread_t t[4];
  for (int i = 0; i < 4; i++) pthread_create(&t[i], 0, worker, 0);
  for (int i = 0; i < 4; i++) pthread_join(t[i], 0);
  return value == 40 ? 0 : 1;
}
