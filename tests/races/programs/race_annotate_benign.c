/* Real races, some annotated benign: a statistics block (AnnotateBenignRaceSized
   over all of it), a flag whose first byte is annotated (AnnotateBenignRace, one
   byte as ThreadSanitizer has it: an access that overlaps it is covered), and a
   word the worker writes between AnnotateIgnoreWritesBegin/End while main reads
   it between AnnotateIgnoreReadsBegin/End. None of them is reported. The hit
   counter beside them races unannotated, and so does a heap block that reuses
   the memory of a freed block annotated benign: the range ended with the free. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "suite.h"

void AnnotateBenignRaceSized(const char* file, int line, const volatile void* addr, long size, const char* desc);
void AnnotateBenignRace(const char* file, int line, const volatile void* addr, const char* desc);
void AnnotateIgnoreReadsBegin(const char* file, int line);
void AnnotateIgnoreReadsEnd(const char* file, int line);
void AnnotateIgnoreWritesBegin(const char* file, int line);
void AnnotateIgnoreWritesEnd(const char* file, int line);

struct {
  long requests;
  long bytes;
} stats;
int flag;
int ignored;
int hits;
int* block;

static void* worker(void* arg) {
  stats.requests++;
  stats.bytes += 10;
  flag = 1;
  AnnotateIgnoreWritesBegin(__FILE__, __LINE__);
  ignored = 1;
  AnnotateIgnoreWritesEnd(__FILE__, __LINE__);
  hits++;        // RACE(a)
  block[0] = 1;  // RACE(b)
  return arg;
}

int main(void) {
  AnnotateBenignRaceSized(__FILE__, __LINE__, &stats, sizeof stats, "statistics, approximate");
  AnnotateBenignRace(__FILE__, __LINE__, &flag, "a hint");
  int* old = malloc(64);
  AnnotateBenignRaceSized(__FILE__, __LINE__, old, 64, "freed below");
  const uintptr_t old_address = (uintptr_t)old;
  free(old);
  block = malloc(64);
  if ((uintptr_t)block != old_address) {
    printf("the block was not reused\n");
    return 3;
  }
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  sleep_ms(20);
  stats.requests++;
  stats.bytes += 20;
  flag = 2;
  AnnotateIgnoreReadsBegin(__FILE__, __LINE__);
  int seen = ignored;
  AnnotateIgnoreReadsEnd(__FILE__, __LINE__);
  hits++;            // RACE(a)
  int b = block[0];  // RACE(b)
  pthread_join(t, NULL);
  printf("%d %d\n", seen, b);
  free(block);
  return 0;
}
