/* Failed lock attempts: while main holds the mutex, a thread's trylock (EBUSY)
 * and 50 ms timedlock (ETIMEDOUT) fail; after main lets go its trylock succeeds.
 * Exactly one acquisition in the thread. */
#include <errno.h>
#include <pthread.h>
#include <time.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;
static int failures;

static void* contender(void* arg) {
  (void)arg;
  if (pthread_mutex_trylock(&mu) == EBUSY) failures++;
  struct timespec deadline;
  clock_gettime(CLOCK_REALTIME, &deadline);
  deadline.tv_nsec += 50 * 1000 * 1000;
  if (deadline.tv_nsec >= 1000000000) {
    deadline.tv_sec++;
    deadline.tv_nsec -= 1000000000;
  }
  if (pthread_mutex_timedlock(&mu, &deadline) == ETIMEDOUT) failures++;
  return 0;
}

static void* second_try(void* arg) {
  (void)arg;
  if (pthread_mutex_trylock(&mu) == 0) pthread_mutex_unlock(&mu);
  return 0;
}

int main(void) {
  (void)gate;
  pthread_mutex_lock(&mu);
  pthread_t t;
  pthread_create(&t, 0, contender, 0);
  pthread_join(t, 0);
  pthread_mutex_unlock(&mu);
  pthread_create(&t, 0, second_try, 0);
  pthread_join(t, 0);
  return failures == 2 ? 0 : 1;
}
