/* A program whose every thread makes the same synchronisation calls, with the
   same accesses between them, whatever the schedule: recorded with
   --sync=inproc and --sync=ebpf, each thread's sequence of sync events and
   accesses must come out the same. argv[1] is the manifest file.
     main:    locks m, starts the waiter-side worker, waits on the condition
              variable exactly once (the worker can only lock m once main is
              waiting), then plays ping-pong with it over two semaphores;
     worker:  signals main under m, then the other side of the ping-pong;
     counter: 20 increments of `total` under m, started after the ping-pong. */
#include <pthread.h>
#include <semaphore.h>

#include "manifest.h"

#define NOINLINE __attribute__((noinline))

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t c = PTHREAD_COND_INITIALIZER;
sem_t ping, pong;
int flag;
long shared_a, shared_b, total;

/* n read-modify-writes of *p: accesses the runtime records. */
NOINLINE void touch(volatile long* p, int n) {
  for (int i = 0; i < n; ++i) *p = *p + 1;
}

static void* worker(void* arg) {
  touch(&shared_b, 1);
  pthread_mutex_lock(&m);
  touch(&shared_a, 3);
  flag = 1;
  pthread_cond_signal(&c);
  pthread_mutex_unlock(&m);
  for (int i = 0; i < 5; ++i) {
    sem_wait(&ping);
    touch(&shared_b, i + 1);
    sem_post(&pong);
  }
  pthread_mutex_lock(&m);
  touch(&shared_a, 2);
  pthread_mutex_unlock(&m);
  return arg;
}

static void* counter(void* arg) {
  for (int i = 0; i < 20; ++i) {
    pthread_mutex_lock(&m);
    touch(&total, 1);
    pthread_mutex_unlock(&m);
    touch(&shared_b + 1, 2); /* thread-private: the word after shared_b is unused */
  }
  return arg;
}

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  manifest_open(argv[1]);
  manifest_put("m", &m);
  manifest_put("c", &c);
  manifest_put("ping", &ping);
  manifest_put("pong", &pong);
  sem_init(&ping, 0, 0);
  sem_init(&pong, 0, 0);
  pthread_t t, u;
  pthread_mutex_lock(&m);
  touch(&shared_a, 1);
  pthread_create(&t, NULL, worker, NULL);
  while (!flag) pthread_cond_wait(&c, &m);
  touch(&shared_a, 2);
  pthread_mutex_unlock(&m);
  for (int i = 0; i < 5; ++i) {
    touch(&shared_b, 1);
    sem_post(&ping);
    sem_wait(&pong);
  }
  pthread_create(&u, NULL, counter, NULL);
  pthread_join(t, NULL);
  pthread_join(u, NULL);
  touch(&total, 1);
  return total == 21 ? 0 : 1;
}
