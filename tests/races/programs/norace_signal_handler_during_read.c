/* main blocks in read() on a pipe; a worker sends it SIGUSR1 while it waits
   there, then writes the byte that ends the read. The handler writes
   `value`, which main wrote before the read and reads after it: the handler
   runs during the read, in the thread's context (ThreadSanitizer's model of a
   handler in a blocking call). No race. (The worker waits 100 ms after main
   says it is about to read: the signal finds main inside read().) */
// seer-expect: none
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

int value;
int waiting;  // relaxed atomic accesses only
int fds[2];
pthread_t main_thread;

static void handler(int sig) {
  (void)sig;
  value = 42;
}

static void* worker(void* arg) {
  (void)arg;
  while (!__atomic_load_n(&waiting, __ATOMIC_RELAXED)) {
  }
  usleep(100000);
  pthread_kill(main_thread, SIGUSR1);
  usleep(10000);
  const char byte = 1;
  if (write(fds[1], &byte, 1) != 1) return NULL;
  return NULL;
}

int main(void) {
  if (signal(SIGUSR1, handler) == SIG_ERR || pipe(fds) != 0) return 1;
  main_thread = pthread_self();
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  value = 1;
  __atomic_store_n(&waiting, 1, __ATOMIC_RELAXED);
  char byte;
  const ssize_t n = read(fds[0], &byte, 1); /* signal() restarts it after the handler */
  printf("%zd %d\n", n, value);
  pthread_join(t, NULL);
  return value == 42 ? 0 : 1;
}
