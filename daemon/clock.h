// The service's clocks: the wall clock, in seconds since the epoch (their ISO
// 8601 form is recorder/trace_metadata.h's IsoTime, as in every trace), and
// CPU time, in seconds of user + system time.
#pragma once

struct rusage;

namespace seer::daemon {

double NowUnix();

// The user + system time `ru` gives, and the calling process's so far.
double CpuSeconds(const struct rusage& ru);
double ProcessCpuSeconds();

}  // namespace seer::daemon
