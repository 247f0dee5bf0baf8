/* A deadlock that happens: each thread takes one mutex, both meet at a barrier,
   then each blocks on the other's mutex. alarm() kills the program a second
   later (SIGALRM), as a test harness or a watchdog would. The blocked
   requests never return, so only the requests the runtime records before a
   blocking lock waits say what the threads were waiting for. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t both_hold_one;

static void* a_then_b(void* arg) {
  pthread_mutex_lock(&a);  // MARK-A-HELD
  pthread_barrier_wait(&both_hold_one);
  pthread_mutex_lock(&b);  // MARK-B-WANTED
  pthread_mutex_unlock(&b);
  pthread_mutex_unlock(&a);
  return arg;
}

static void* b_then_a(void* arg) {
  pthread_mutex_lock(&b);  // MARK-B-HELD
  pthread_barrier_wait(&both_hold_one);
  pthread_mutex_lock(&a);  // MARK-A-WANTED
  pthread_mutex_unlock(&a);
  pthread_mutex_unlock(&b);
  return arg;
}

int main(void) {
  alarm(1);
  pthread_barrier_init(&both_hold_one, NULL, 2);
  pthread_t t1, t2;
  pthread_create(&t1, NULL, a_then_b, NULL);
  pthread_create(&t2, NULL, b_then_a, NULL);
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  puts("no deadlock");
  return 0;
}
