/* Takes a lock 100 times, then dies of SIGSEGV. */
#include <pthread.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

int main(void) {
  for (int i = 0; i < 100; i++) {
    pthread_mutex_lock(&mu);
    pthread_mutex_unlock(&mu);
  }
  volatile int* nowhere = 0;
  return *nowhere;
}
