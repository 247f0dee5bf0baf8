/* Two threads update one field of a struct; the other fields each belong to one
   thread and do not race. */
#include <pthread.h>
#include <stdio.h>

#include "suite.h"

struct account {
  long balance;
  long id;
  char tag[8];
};
struct account acct;

static void* worker(void* arg) {
  acct.balance += 10;  // RACE(a)
  acct.tag[0] = 'w';
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  acct.id = 7;
  sleep_ms(10);
  acct.balance -= 5;  // RACE(a)
  pthread_join(t, NULL);
  printf("%ld %ld %c\n", acct.balance, acct.id, acct.tag[0]);
  return 0;
}
