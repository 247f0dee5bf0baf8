#include "recorder/runtime_modes/spool_queue.h"

#include <cstdio>

#include "recorder/recorder.h"

namespace seer::recorder {

uint64_t DefaultSpoolBytes() {
  // At most 512 MiB: the spool arena keeps about three times the spool's peak
  // resident, and fresh pages are not free (on the development VMs 1.7 s of
  // system time per GiB): with a 4 GiB bound a program that outran the recorder
  // spent more time faulting in spool pages than the recorder saved it.
  constexpr uint64_t kMin = 256ull << 20, kMax = 512ull << 20;
  uint64_t available_kb = 0;
  if (FILE* f = fopen("/proc/meminfo", "r")) {
    char line[128];
    while (fgets(line, sizeof line, f) != nullptr)
      if (sscanf(line, "MemAvailable: %lu kB", &available_kb) == 1) break;
    fclose(f);
  }
  if (available_kb == 0) return 1ull << 30;
  return std::clamp<uint64_t>(available_kb * 1024 / 4, kMin, kMax);
}

}  // namespace seer::recorder
