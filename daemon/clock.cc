#include "daemon/clock.h"

#include <chrono>
#include <ctime>

namespace seer::daemon {

double NowUnix() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string IsoTime(double unix_seconds) {
  const time_t t = static_cast<time_t>(unix_seconds);
  struct tm tm;
  gmtime_r(&t, &tm);
  char buf[32];
  strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace seer::daemon
