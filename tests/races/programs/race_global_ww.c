/* Two threads write one global without a lock. */
#include <pthread.h>

int counter;

static void* writer(void* arg) {
  counter = 1;  // RACE(a)
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, writer, NULL);
  counter = 2;  // RACE(a)
  pthread_join(t, NULL);
  return 0;
}
