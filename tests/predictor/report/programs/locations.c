// Report test program: races on a variable of main's stack, on a thread-local
// variable of the worker handed to main, and on a heap block; the report names
// each variable's kind ("stack", "tls", "heap") and owner thread. The MARK-*
// comments name the lines the tests expect in the report.
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>

__thread int tls_pad[3]; /* so that tls_counter is not at offset 0 of the block */
__thread int tls_counter;
int* block;
int* volatile on_main_stack;
int* volatile worker_tls;
pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
int published;
sem_t done; /* the worker lives (and so does its TLS) until main wrote it */

void* Worker(void* arg) {
  (void)arg;
  tls_pad[0] = 1;
  pthread_mutex_lock(&mu);
  worker_tls = &tls_counter;
  published = 1;
  pthread_cond_signal(&cv);
  while (published != 2) pthread_cond_wait(&cv, &mu);
  pthread_mutex_unlock(&mu);
  tls_counter = 1;     // MARK-TLS-WORKER
  *on_main_stack = 5;  // MARK-STACK-WORKER
  block[1] = 5;        // MARK-HEAP-WORKER
  sem_wait(&done);
  return 0;
}

int main(void) {
  int local = 0;
  on_main_stack = &local;
  block = malloc(16);
  sem_init(&done, 0, 0);
  pthread_t t;
  pthread_create(&t, 0, Worker, 0);
  pthread_mutex_lock(&mu);
  while (published != 1) pthread_cond_wait(&cv, &mu);
  published = 2;
  pthread_cond_signal(&cv);
  pthread_mutex_unlock(&mu);
  *worker_tls = 2;  // MARK-TLS-MAIN
  local = 3;        // MARK-STACK-MAIN
  block[1] = 3;     // MARK-HEAP-MAIN
  sem_post(&done);
  pthread_join(t, 0);
  free(block);
  return 0;
}
