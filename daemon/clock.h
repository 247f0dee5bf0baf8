// The service's wall clock: seconds since the epoch (their ISO 8601 form is
// recorder/trace_metadata.h's IsoTime, as in every trace).
#pragma once

namespace seer::daemon {

double NowUnix();

}  // namespace seer::daemon
