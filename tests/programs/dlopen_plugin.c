/* The library dlopen_lock loads at run time: takes its own mutex 5 times. */
#include <pthread.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int calls;

void plugin_work(void) {
  for (int i = 0; i < 5; i++) {
    pthread_mutex_lock(&mu);
    calls++;
    pthread_mutex_unlock(&mu);
  }
}
