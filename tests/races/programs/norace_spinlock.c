/* Two threads update a counter under a pthread spinlock. */
// seer-expect: none
#include <pthread.h>
#include <stdio.h>

pthread_spinlock_t spin;
long counter;

static void* worker(void* arg) {
  for (int i = 0; i < 50; ++i) {
    pthread_spin_lock(&spin);
    counter++;
    pthread_spin_unlock(&spin);
  }
  return arg;
}

int main(void) {
  pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE);
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  worker(NULL);
  pthread_join(t, NULL);
  printf("%ld\n", counter);
  return 0;
}
