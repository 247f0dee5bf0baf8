/* Main allocates a block between AnnotateIgnoreWritesBegin/End and hands it to
   a worker through a relaxed atomic (which orders nothing); the worker writes
   it; main, told through another relaxed flag that the worker is done, frees
   it between the same annotations. The allocation's write and the free's write
   of the block are main's writes, ignored as ThreadSanitizer ignores them (its
   ignore_malloc.cpp and ignore_free.cpp): no race. */
// seer-expect: none
#include <pthread.h>
#include <stdlib.h>

void AnnotateIgnoreWritesBegin(const char* file, int line);
void AnnotateIgnoreWritesEnd(const char* file, int line);

int* block;
int done;  // relaxed atomic accesses only

static void* worker(void* arg) {
  (void)arg;
  int* p;
  while ((p = __atomic_load_n(&block, __ATOMIC_RELAXED)) == NULL) {
  }
  *p = 42;
  __atomic_store_n(&done, 1, __ATOMIC_RELAXED);
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  AnnotateIgnoreWritesBegin(__FILE__, __LINE__);
  int* p = malloc(sizeof *p);
  AnnotateIgnoreWritesEnd(__FILE__, __LINE__);
  __atomic_store_n(&block, p, __ATOMIC_RELAXED);
  while (!__atomic_load_n(&done, __ATOMIC_RELAXED)) {
  }
  AnnotateIgnoreWritesBegin(__FILE__, __LINE__);
  free(p);
  AnnotateIgnoreWritesEnd(__FILE__, __LINE__);
  pthread_join(t, NULL);
  return 0;
}
