// The service's wall clock: seconds since the epoch, and their ISO 8601 form
// for window metadata, findings and reports.
#pragma once

#include <string>

namespace seer::daemon {

double NowUnix();
std::string IsoTime(double unix_seconds);  // "2026-11-26T00:46:40Z"

}  // namespace seer::daemon
