#include "cli/heap_settings.h"

#include <malloc.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <cstring>

namespace seer::cli {

bool BuildsWindows(const std::string& name) { return name == "analyze" || name == "merge"; }

std::string TunablesWithHugePages(const char* current) {
  constexpr char kHugePages[] = "glibc.malloc.hugetlb=1";
  if (current == nullptr || current[0] == '\0') return kHugePages;
  if (std::strstr(current, "glibc.malloc.hugetlb=") != nullptr) return "";
  return std::string(current) + ":" + kHugePages;
}

void RestartWithHugePageHeap(char** argv) {
  // Huge pages for every block malloc maps: with the settings below, most of
  // a window's memory comes from the heap's top, which glibc then madvises
  // (MADV_HUGEPAGE), so one fault maps 2 MB. Measured on the 3M-event trace
  // of issue #33 (medians of five runs): the atomicity engine 0.93 -> 0.73 CPU
  // s, deadlock 0.76 -> 0.57, page faults 14.2K -> 1.6K, the same peak RSS.
  // Where the system gives no huge pages (transparent_hugepage "never"),
  // glibc does nothing more.
  const char* current = std::getenv("GLIBC_TUNABLES");
  const std::string tunables = TunablesWithHugePages(current);
  if (tunables.empty()) return;
  const std::string before = current != nullptr ? current : "";
  if (setenv("GLIBC_TUNABLES", tunables.c_str(), 1) != 0) return;
  // By its own path, so that ps and top still name it after its file (through
  // /proc/self/exe they would say "exe"); /proc/self/exe when that is gone.
  char self[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0) {
    self[n] = '\0';
    execv(self, argv);
  }
  execv("/proc/self/exe", argv);
  // Not restarted: run as is, with the environment as it was.
  if (current != nullptr)
    setenv("GLIBC_TUNABLES", before.c_str(), 1);
  else
    unsetenv("GLIBC_TUNABLES");
}

void KeepFreedMemoryForTheNextWindow() {
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's largest: blocks up to 32 MB come from the heap
  mallopt(M_TRIM_THRESHOLD, INT_MAX);   // whose top is not given back
}

bool UserSetArenas(const char* arena_max, const char* tunables) {
  return (arena_max != nullptr && arena_max[0] != '\0') ||
         (tunables != nullptr && std::strstr(tunables, "glibc.malloc.arena_max=") != nullptr);
}

void OneHeapForAllThreads() {
  if (UserSetArenas(std::getenv("MALLOC_ARENA_MAX"), std::getenv("GLIBC_TUNABLES"))) return;
  mallopt(M_ARENA_MAX, 1);
}

}  // namespace seer::cli
