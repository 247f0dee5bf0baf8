// Allocation events from every malloc-family function and every operator
// new/delete, a freed block reused, and std::thread (whose pthread_create call
// comes from inside libstdc++). argv[1] is the manifest file.
#include <malloc.h>
#include <stdlib.h>

#include <new>
#include <thread>

extern "C" {
#include "manifest.h"
}

struct alignas(64) Aligned {
  char bytes[64];
};

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  manifest_open(argv[1]);
  void* m = malloc(24);
  manifest_put("malloc24", m);
  void* c = calloc(3, 8);
  manifest_put("calloc24", c);
  void* r = realloc(nullptr, 40);
  manifest_put("realloc40", r);
  void* pm = nullptr;
  if (posix_memalign(&pm, 64, 48) != 0) return 1;
  manifest_put("posix_memalign48", pm);
  void* aa = aligned_alloc(128, 256);
  manifest_put("aligned_alloc256", aa);
  auto* n1 = new long;
  manifest_put("new8", n1);
  auto* n2 = new long[4];
  manifest_put("new_array32", n2);
  auto* n3 = new (std::nothrow) int;
  manifest_put("new_nothrow4", n3);
  auto* n4 = new Aligned;
  manifest_put("new_aligned64", n4);
  free(m);
  free(c);
  free(r);
  free(pm);
  free(aa);
  delete n1;
  delete[] n2;
  delete n3;
  delete n4;

  // Reuse: the same size right after a free usually gets the same block back.
  void* first = malloc(100);
  manifest_put("first100", first);
  free(first);
  void* second = malloc(100);
  manifest_put("second100", second);
  free(second);

  long shared = 0;
  std::thread t([&shared] { shared = 1; });
  t.join();
  fclose(manifest_file);
  return shared == 1 ? 0 : 1;
}
