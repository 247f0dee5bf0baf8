/* The dynamic annotations as a library defines them when no tool is there: weak
 * no-ops (as Chromium's dynamic_annotations.c does), for the preload test. A
 * preloaded seer runtime comes first in the lookup order and interposes them,
 * for the program's calls and for this library's own (publish_annotated). */
#define WEAK __attribute__((weak))

WEAK void AnnotateHappensBefore(const char* file, int line, const volatile void* addr) {
  (void)file, (void)line, (void)addr;
}
WEAK void AnnotateHappensAfter(const char* file, int line, const volatile void* addr) {
  (void)file, (void)line, (void)addr;
}
WEAK void AnnotateRWLockAcquired(const char* file, int line, const volatile void* lock, long is_w) {
  (void)file, (void)line, (void)lock, (void)is_w;
}
WEAK void AnnotateRWLockReleased(const char* file, int line, const volatile void* lock, long is_w) {
  (void)file, (void)line, (void)lock, (void)is_w;
}
WEAK void AnnotateNewMemory(const char* file, int line, const volatile void* addr, long size) {
  (void)file, (void)line, (void)addr, (void)size;
}

/* A handoff's release half inside the library: the edge, then a relaxed store. */
void publish_annotated(int* flag) {
  AnnotateHappensBefore(__FILE__, __LINE__, flag);
  __atomic_store_n(flag, 1, __ATOMIC_RELAXED);
}
