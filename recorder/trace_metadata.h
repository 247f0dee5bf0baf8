// The metadata every recorded trace carries about where and when it was made
// (source, host, kernel, start and end time), written in one place for every
// recording mode and for the service's windows.
#pragma once

#include <string>

#include "seer/trace.h"

namespace seer::recorder {

// "2026-11-26T00:46:40Z": a time in seconds since the epoch, ISO 8601 in UTC.
std::string IsoTime(double unix_seconds);
// Now, in that form.
std::string IsoTimeNow();

// Source "record", this machine's host name and kernel ("Linux 6.18.0 #1 SMP
// ..."), and the start time, now.
void WriteRecordingStart(TraceWriter* writer);
// The end time, now.
void WriteRecordingEnd(TraceWriter* writer);

}  // namespace seer::recorder
