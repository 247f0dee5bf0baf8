/* The back-off shape with the other try calls: holding a mutex, the server only
   tries a write lock (pthread_rwlock_trywrlock), a read lock
   (pthread_rwlock_tryrdlock), a spin lock (pthread_spin_trylock), and waits for
   a write lock with a timeout (pthread_rwlock_timedwrlock), backing off when it
   fails. A client takes each of those locks (a write lock, or the spin lock)
   first and then the server's mutex, blocking. No schedule deadlocks: the
   server's requests never wait forever.
   seer-record: ebpf inproc
   seer-expect: none */
#include <pthread.h>
#include <sched.h>
#include <time.h>

#include "order.h"

static pthread_mutex_t m1 = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t m2 = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t m3 = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t m4 = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t w = PTHREAD_RWLOCK_INITIALIZER;
static pthread_rwlock_t r = PTHREAD_RWLOCK_INITIALIZER;
static pthread_rwlock_t tw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_spinlock_t s;
/* One counter per thread: a shared one would order the threads' sections
   through the writes its reads saw, and hide the inversions. */
static long server_done, client_done, backoffs;

static int try_write(void) { return pthread_rwlock_trywrlock(&w); }
static int try_read(void) { return pthread_rwlock_tryrdlock(&r); }
static int try_spin(void) { return pthread_spin_trylock(&s); }
static int timed_write(void) {
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  t.tv_sec += 1;
  return pthread_rwlock_timedwrlock(&tw, &t);
}

/* Holding `outer`, get the inner lock through `attempt`, backing off on failure. */
static void back_off_until(pthread_mutex_t* outer, int (*attempt)(void)) {
  for (;;) {
    pthread_mutex_lock(outer);
    if (attempt() == 0) return;
    pthread_mutex_unlock(outer);
    backoffs++;
    sched_yield();
  }
}

static void* server(void* arg) {
  (void)arg;
  back_off_until(&m1, try_write);
  server_done++;
  pthread_rwlock_unlock(&w);
  pthread_mutex_unlock(&m1);
  back_off_until(&m2, try_read);
  server_done++;
  pthread_rwlock_unlock(&r);
  pthread_mutex_unlock(&m2);
  back_off_until(&m3, try_spin);
  server_done++;
  pthread_spin_unlock(&s);
  pthread_mutex_unlock(&m3);
  back_off_until(&m4, timed_write);
  server_done++;
  pthread_rwlock_unlock(&tw);
  pthread_mutex_unlock(&m4);
  return NULL;
}

static void* client(void* arg) {
  (void)arg;
  sleep_ms(STAGGER_MS);
  pthread_rwlock_wrlock(&w);
  pthread_mutex_lock(&m1);
  client_done++;
  pthread_mutex_unlock(&m1);
  pthread_rwlock_unlock(&w);
  pthread_rwlock_wrlock(&r);
  pthread_mutex_lock(&m2);
  client_done++;
  pthread_mutex_unlock(&m2);
  pthread_rwlock_unlock(&r);
  pthread_spin_lock(&s);
  pthread_mutex_lock(&m3);
  client_done++;
  pthread_mutex_unlock(&m3);
  pthread_spin_unlock(&s);
  pthread_rwlock_wrlock(&tw);
  pthread_mutex_lock(&m4);
  client_done++;
  pthread_mutex_unlock(&m4);
  pthread_rwlock_unlock(&tw);
  return NULL;
}

int main(void) {
  start_watchdog();
  pthread_spin_init(&s, PTHREAD_PROCESS_PRIVATE);
  pthread_t t1, t2;
  pthread_create(&t1, NULL, server, NULL);
  pthread_create(&t2, NULL, client, NULL);
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  return 0;
}
