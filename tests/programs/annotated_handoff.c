/* A handoff through a relaxed flag made a happens-before edge by the dynamic
 * annotations of libannotations_weak.so (weak no-ops there), a custom lock
 * annotated as a rwlock's, and a buffer annotated as new memory. Built with plain
 * gcc and recorded with the preloaded runtime (preload_test.cc). Built with
 * NO_ANNOTATIONS (annotated_handoff_plain), the same without any annotation.
 * Prints the addresses the test looks for. */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

void AnnotateHappensAfter(const char* file, int line, const volatile void* addr);
void AnnotateRWLockAcquired(const char* file, int line, const volatile void* lock, long is_w);
void AnnotateRWLockReleased(const char* file, int line, const volatile void* lock, long is_w);
void AnnotateNewMemory(const char* file, int line, const volatile void* addr, long size);
void publish_annotated(int* flag);

#ifdef NO_ANNOTATIONS
#define ANNOTATE(call) ((void)0)
#else
#define ANNOTATE(call) call
#endif

static int flag;
static int data;
static int lock_word;
static int counter;
static char buffer[4000];

static void locked_increment(void) {
  int old;
  do {
    old = 1;
    __asm__ volatile("xchgl %0, %1" : "+r"(old), "+m"(lock_word) : : "memory");
  } while (old != 0);
  ANNOTATE(AnnotateRWLockAcquired(__FILE__, __LINE__, &lock_word, 1));
  counter++;
  ANNOTATE(AnnotateRWLockReleased(__FILE__, __LINE__, &lock_word, 1));
  __asm__ volatile("movl $0, %0" : "=m"(lock_word) : : "memory");
}

static void* producer(void* arg) {
  data = 42;
  locked_increment();
#ifdef NO_ANNOTATIONS
  __atomic_store_n(&flag, 1, __ATOMIC_RELAXED);
#else
  publish_annotated(&flag);
#endif
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, producer, NULL);
  struct timespec ms = {0, 1000000};
  while (!__atomic_load_n(&flag, __ATOMIC_RELAXED)) nanosleep(&ms, NULL);
  ANNOTATE(AnnotateHappensAfter(__FILE__, __LINE__, &flag));
  locked_increment();
  ANNOTATE(AnnotateNewMemory(__FILE__, __LINE__, buffer, sizeof buffer));
  buffer[0] = (char)data;
  pthread_join(t, NULL);
  printf("flag=%p lock=%p buffer=%p\n", (void*)&flag, (void*)&lock_word, (void*)buffer);
  return data == 42 && counter == 2 ? 0 : 1;
}
