#include "daemon/clock.h"

#include <sys/resource.h>

#include <chrono>

namespace seer::daemon {

double NowUnix() { return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(); }

double CpuSeconds(const struct rusage& ru) {
  return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
}

double ProcessCpuSeconds() {
  struct rusage ru = {};
  getrusage(RUSAGE_SELF, &ru);
  return CpuSeconds(ru);
}

}  // namespace seer::daemon
