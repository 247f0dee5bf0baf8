/* The dynamic annotations in one thread (runtime_test.cc, AnnotationsTest):
   which plain accesses the benign ranges and the ignores leave out of the
   recording, and the events the other annotations become. Every access is
   volatile and of one byte, at an address the manifest names. */
#include <stdlib.h>

#include "manifest.h"

void AnnotateBenignRaceSized(const char* file, int line, const volatile void* addr, long size, const char* desc);
void AnnotateBenignRace(const char* file, int line, const volatile void* addr, const char* desc);
void AnnotateNewMemory(const char* file, int line, const volatile void* addr, long size);
void AnnotateIgnoreReadsBegin(const char* file, int line);
void AnnotateIgnoreReadsEnd(const char* file, int line);
void AnnotateIgnoreWritesBegin(const char* file, int line);
void AnnotateIgnoreWritesEnd(const char* file, int line);
void AnnotateHappensBefore(const char* file, int line, const volatile void* addr);
void AnnotateHappensAfter(const char* file, int line, const volatile void* addr);
void AnnotateRWLockAcquired(const char* file, int line, const volatile void* lock, long is_w);
void AnnotateRWLockReleased(const char* file, int line, const volatile void* lock, long is_w);

enum { kMany = 5000 };
static char arena[1024];
static char many[2 * kMany];
static int lock_word;

static void touch(const char* name, volatile char* p) {
  manifest_put(name, p);
  *p = 1;
}

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  manifest_open(argv[1]);
  volatile char* a = arena;
  /* Two touching ranges merge; an access overlapping either is dropped. */
  AnnotateBenignRaceSized(__FILE__, __LINE__, a + 0, 16, "first");
  AnnotateBenignRaceSized(__FILE__, __LINE__, a + 16, 16, "touching");
  touch("merged_in", a + 20);
  touch("merged_past", a + 32);
  /* One byte (AnnotateBenignRace) covers an access that overlaps it. */
  AnnotateBenignRace(__FILE__, __LINE__, a + 100, "one byte");
  touch("one_byte", a + 100);
  touch("next_byte", a + 101);
  /* New memory in the middle of a range splits it: the middle is recorded again,
     and is an allocation. */
  AnnotateBenignRaceSized(__FILE__, __LINE__, a + 200, 100, "split");
  AnnotateNewMemory(__FILE__, __LINE__, a + 240, 20);
  manifest_put("new_memory", a + 240);
  touch("split_left", a + 210);
  touch("split_middle", a + 250);
  touch("split_right", a + 280);
  /* A freed block's range ends with it. */
  volatile char* block = malloc(64);
  AnnotateBenignRaceSized(__FILE__, __LINE__, block, 64, "freed");
  touch("block_benign", block + 8);
  free((void*)block);
  /* Ignored reads (not writes), nested ignored writes. */
  manifest_put("ignored", a + 400);
  AnnotateIgnoreReadsBegin(__FILE__, __LINE__);
  int sum = a[400];
  a[400] = 2;
  AnnotateIgnoreReadsEnd(__FILE__, __LINE__);
  AnnotateIgnoreWritesBegin(__FILE__, __LINE__);
  AnnotateIgnoreWritesBegin(__FILE__, __LINE__);
  a[400] = 3;
  AnnotateIgnoreWritesEnd(__FILE__, __LINE__);
  a[400] = 4;
  sum += a[400];
  AnnotateIgnoreWritesEnd(__FILE__, __LINE__);
  a[400] = 5;
  /* Synchronisation. */
  manifest_put("lock", &lock_word);
  AnnotateHappensBefore(__FILE__, __LINE__, &lock_word);
  AnnotateHappensAfter(__FILE__, __LINE__, &lock_word);
  AnnotateRWLockAcquired(__FILE__, __LINE__, &lock_word, 0);
  AnnotateRWLockReleased(__FILE__, __LINE__, &lock_word, 0);
  /* More ranges than the table holds: the last ones are dropped. */
  volatile char* m = many;
  for (int i = 0; i < kMany; ++i) AnnotateBenignRace(__FILE__, __LINE__, m + 2 * i, "many");
  manifest_put("many", m);
  for (int i = 0; i < kMany; ++i) m[2 * i] = 1;
  return sum == 4 ? 0 : 1;
}
