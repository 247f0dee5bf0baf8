/* Every kind of synchronisation object made in main, used by two workers (a
   mutex, a rwlock, a spin lock, a condition variable with its wait, a barrier,
   a semaphore), and destroyed by main after joining them: each destroy is
   ordered after every use by the joins. (Lockset, which knows no joins, pairs every init and destroy with
   every use: racefuzzer.suite fuzzes each such pair, so the program stays
   small.) */
// seer-expect: none
#include <pthread.h>
#include <semaphore.h>

pthread_mutex_t m;
pthread_rwlock_t rw;
pthread_spinlock_t spin;
pthread_cond_t c;
pthread_barrier_t b;
sem_t s;
int ready;
long counter;

static void* waiter(void* arg) {
  (void)arg;
  pthread_mutex_lock(&m);
  while (!ready) pthread_cond_wait(&c, &m);
  pthread_mutex_unlock(&m);
  pthread_rwlock_rdlock(&rw);
  pthread_rwlock_unlock(&rw);
  pthread_spin_lock(&spin);
  counter++;
  pthread_spin_unlock(&spin);
  pthread_barrier_wait(&b);
  sem_wait(&s);
  return NULL;
}

static void* signaller(void* arg) {
  (void)arg;
  pthread_mutex_lock(&m);
  ready = 1;
  pthread_cond_broadcast(&c);
  pthread_mutex_unlock(&m);
  pthread_rwlock_wrlock(&rw);
  pthread_rwlock_unlock(&rw);
  pthread_spin_lock(&spin);
  counter++;
  pthread_spin_unlock(&spin);
  pthread_barrier_wait(&b);
  sem_post(&s);
  return NULL;
}

static void make(void) {
  pthread_mutex_init(&m, NULL);
  pthread_rwlock_init(&rw, NULL);
  pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE);
  pthread_cond_init(&c, NULL);
  pthread_barrier_init(&b, NULL, 2);
  sem_init(&s, 0, 0);
}

static void destroy(void) {
  pthread_mutex_destroy(&m);
  pthread_rwlock_destroy(&rw);
  pthread_spin_destroy(&spin);
  pthread_cond_destroy(&c);
  pthread_barrier_destroy(&b);
  sem_destroy(&s);
}

int main(void) {
  make();
  pthread_t t1, t2;
  pthread_create(&t1, NULL, waiter, NULL);
  pthread_create(&t2, NULL, signaller, NULL);
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  destroy();
  return counter == 2 ? 0 : 2;
}
