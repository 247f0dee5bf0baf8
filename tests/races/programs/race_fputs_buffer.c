/* stdio reads the program's string: fputs() and puts() in a worker against
   main's store into the same array. */
#include <pthread.h>
#include <stdio.h>

#include "suite.h"

char message[16] = "hello";
char line[16] = "world";

static void* worker(void* arg) {
  (void)arg;
  fputs(message, stdout);  // RACE(a)
  puts(line);              // RACE(b)
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  sleep_ms(50);
  message[0] = 'H';  // RACE(a)
  line[0] = 'W';     // RACE(b)
  pthread_join(t, NULL);
  return 0;
}
