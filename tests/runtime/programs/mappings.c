/* Memory mappings in one thread, for the exact events of runtime/interpose_mmap.cc:
   a two-page mapping, its first page unmapped, a MAP_FIXED mapping over its
   second page, that page unmapped. The mapping is named in the manifest. Built
   with seer-cc and plain (preloaded runtime). */
#include <sys/mman.h>

#include "manifest.h"

enum { kPage = 4096 };

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  manifest_open(argv[1]);
  char* p = mmap(NULL, 2 * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return 1;
  manifest_put("map", p);
  p[0] = 1;
  if (munmap(p, kPage) != 0) return 1;
  if (mmap(p + kPage, kPage, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != p + kPage) return 1;
  if (munmap(p + kPage, 100) != 0) return 1;  // a whole page
  return 0;
}
