/* Two threads wait on a barrier; the one that gets PTHREAD_BARRIER_SERIAL_THREAD
   destroys it once the wait returned: every arrival happens before every
   departure, so the destroy is ordered after the other thread's wait (glibc's
   destroy waits for it to leave). */
// seer-expect: none
#include <pthread.h>

pthread_barrier_t b;

static void* worker(void* arg) {
  (void)arg;
  if (pthread_barrier_wait(&b) == PTHREAD_BARRIER_SERIAL_THREAD) pthread_barrier_destroy(&b);
  return NULL;
}

int main(void) {
  pthread_barrier_init(&b, NULL, 2);
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  worker(NULL);
  pthread_join(t, NULL);
  return 0;
}
