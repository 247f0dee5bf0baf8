/* pthread_once initialises a value once; both threads read it afterwards. */
// seer-expect: none
#include <pthread.h>
#include <stdio.h>

pthread_once_t once = PTHREAD_ONCE_INIT;
long limit;

static void init(void) { limit = 1000; }

static long get_limit(void) {
  pthread_once(&once, init);
  return limit;
}

static void* worker(void* arg) { return (void*)get_limit(); }

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  long mine = get_limit();
  void* theirs;
  pthread_join(t, &theirs);
  printf("%ld %ld\n", mine, (long)theirs);
  return 0;
}
