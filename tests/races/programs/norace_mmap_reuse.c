/* A worker maps a page, writes it and unmaps it; main, ordered with the worker
   by nothing but the kernel, maps a page at the same address and writes it. An
   address range unmapped and mapped again is a new variable: no race between
   the two writes. Exits 2 when the address was not mapped again. */
// seer-expect: none
#define _GNU_SOURCE
#include <pthread.h>
#include <sys/mman.h>

#include "suite.h"

enum { kPage = 4096 };
int worker_mapped;

static void* worker(void* arg) {
  char* p = mmap(arg, kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  if (p != arg) return NULL;
  p[0] = 1;
  p[100] = 2;
  munmap(p, kPage);
  worker_mapped = 1;
  return NULL;
}

int main(void) {
  // An address the kernel hands out and takes back before the worker exists.
  void* where = mmap(NULL, kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (where == MAP_FAILED || munmap(where, kPage) != 0) return 1;
  pthread_t t;
  pthread_create(&t, NULL, worker, where);
  sleep_ms(50);
  char* q = mmap(where, kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  if (q != where) return 2;
  q[0] = 3;
  q[100] = 4;
  pthread_join(t, NULL);
  munmap(q, kPage);
  return worker_mapped ? 0 : 2;
}
