/* A worker reads a page that main unmaps, nothing ordering the read before
   the unmap: munmap frees (writes) the pages it unmaps, so the two race. The
   sleep only makes the recorded run read first (a read after the unmap would
   fault). */
#include <pthread.h>
#include <sys/mman.h>

#include "suite.h"

enum { kPage = 4096 };
char* page;
int seen;

static void* worker(void* arg) {
  (void)arg;
  seen = page[8];  // RACE(a)
  return NULL;
}

int main(void) {
  page = mmap(NULL, kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) return 1;
  page[8] = 1;
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  sleep_ms(50);
  munmap(page, kPage);  // RACE(a)
  pthread_join(t, NULL);
  return seen == 1 ? 0 : 2;
}
