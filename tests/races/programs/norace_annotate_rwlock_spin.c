/* A spin lock of the program's own, taken and released by inline assembly (an
   xchg and a plain store, which no hook sees), described to seer with
   AnnotateRWLockAcquired/Released: two writers increment a counter under it in
   write mode, a reader reads it in read mode. The annotations alone make these
   critical sections, as a rwlock's. */
// seer-expect: none
#include <pthread.h>
#include <sched.h>
#include <stdio.h>

void AnnotateRWLockCreate(const char* file, int line, const volatile void* lock);
void AnnotateRWLockDestroy(const char* file, int line, const volatile void* lock);
void AnnotateRWLockAcquired(const char* file, int line, const volatile void* lock, long is_w);
void AnnotateRWLockReleased(const char* file, int line, const volatile void* lock, long is_w);

enum { kRounds = 200 };
int lock_word;
int counter;

static void spin_lock(int is_w) {
  for (;;) {
    int old = 1;
    __asm__ volatile("xchgl %0, %1" : "+r"(old), "+m"(lock_word) : : "memory");
    if (old == 0) break;
    /* Orders nothing; lets seer fuzz's scheduler, which cannot see the lock,
       run the thread that holds it. */
    sched_yield();
  }
  AnnotateRWLockAcquired(__FILE__, __LINE__, &lock_word, is_w);
}

static void spin_unlock(int is_w) {
  AnnotateRWLockReleased(__FILE__, __LINE__, &lock_word, is_w);
  __asm__ volatile("movl $0, %0" : "=m"(lock_word) : : "memory");
}

static void* writer(void* arg) {
  for (int i = 0; i < kRounds; ++i) {
    spin_lock(1);
    counter++;
    spin_unlock(1);
  }
  return arg;
}

static void* reader(void* arg) {
  int seen = 0;
  for (int i = 0; i < kRounds; ++i) {
    spin_lock(0);
    seen = counter;
    spin_unlock(0);
  }
  *(int*)arg = seen;
  return NULL;
}

int main(void) {
  AnnotateRWLockCreate(__FILE__, __LINE__, &lock_word);
  pthread_t w[2], r;
  int seen = 0;
  pthread_create(&r, NULL, reader, &seen);
  for (int i = 0; i < 2; ++i) pthread_create(&w[i], NULL, writer, NULL);
  for (int i = 0; i < 2; ++i) pthread_join(w[i], NULL);
  pthread_join(r, NULL);
  AnnotateRWLockDestroy(__FILE__, __LINE__, &lock_word);
  if (counter != 2 * kRounds) {
    printf("lost updates: %d\n", counter);
    return 3;
  }
  return 0;
}
