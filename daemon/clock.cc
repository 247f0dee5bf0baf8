#include "daemon/clock.h"

#include <chrono>

namespace seer::daemon {

double NowUnix() { return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(); }

}  // namespace seer::daemon
