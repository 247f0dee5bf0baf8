/* Writes before pthread_create are ordered before the new thread, also across a
   chain: main -> child -> grandchild. */
// seer-expect: none
#include <pthread.h>
#include <stdio.h>

int config;
int child_value;

static void* grandchild(void* arg) {
  child_value += config;
  return arg;
}

static void* child(void* arg) {
  child_value = config * 2;
  pthread_t t;
  pthread_create(&t, NULL, grandchild, NULL);
  pthread_join(t, NULL);
  return arg;
}

int main(void) {
  config = 21;
  pthread_t t;
  pthread_create(&t, NULL, child, NULL);
  pthread_join(t, NULL);
  printf("%d\n", child_value);
  return 0;
}
