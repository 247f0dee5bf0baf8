/* Synchronisation objects in one thread, for the exact events of
   runtime/interpose_sync_lifetime.cc and the uses interpose_pthread.cc records:
   each kind made, used once, destroyed; the objects are named in the manifest.
   Built with seer-cc and plain (preloaded runtime). */
#include <pthread.h>
#include <semaphore.h>

#include "manifest.h"

pthread_mutex_t mutex;
pthread_rwlock_t rwlock;
pthread_spinlock_t spin;
pthread_cond_t cond;
pthread_barrier_t barrier;
sem_t sem;

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  manifest_open(argv[1]);
  manifest_put("mutex", &mutex);
  manifest_put("rwlock", &rwlock);
  manifest_put("spin", &spin);
  manifest_put("cond", &cond);
  manifest_put("barrier", &barrier);
  manifest_put("sem", &sem);
  if (pthread_mutex_init(&mutex, NULL) != 0 || pthread_rwlock_init(&rwlock, NULL) != 0 ||
      pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE) != 0 || pthread_cond_init(&cond, NULL) != 0 ||
      pthread_barrier_init(&barrier, NULL, 1) != 0 || sem_init(&sem, 0, 0) != 0)
    return 1;
  pthread_mutex_lock(&mutex);
  pthread_cond_signal(&cond);
  pthread_mutex_unlock(&mutex);
  pthread_rwlock_rdlock(&rwlock);
  pthread_rwlock_unlock(&rwlock);
  pthread_spin_lock(&spin);
  pthread_spin_unlock(&spin);
  pthread_barrier_wait(&barrier);
  sem_post(&sem);
  sem_wait(&sem);
  pthread_mutex_destroy(&mutex);
  pthread_rwlock_destroy(&rwlock);
  pthread_spin_destroy(&spin);
  pthread_cond_destroy(&cond);
  pthread_barrier_destroy(&barrier);
  sem_destroy(&sem);
  return 0;
}
