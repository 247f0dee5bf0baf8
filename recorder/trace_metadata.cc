#include "recorder/trace_metadata.h"

#include <sys/utsname.h>
#include <time.h>

namespace seer::recorder {

std::string IsoTime(double unix_seconds) {
  const time_t t = static_cast<time_t>(unix_seconds);
  tm utc;
  gmtime_r(&t, &utc);
  char buf[32];
  strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buf;
}

std::string IsoTimeNow() { return IsoTime(static_cast<double>(time(nullptr))); }

void WriteRecordingStart(TraceWriter* writer) {
  utsname u;
  uname(&u);
  writer->SetMeta(meta::kSource, "record");
  writer->SetMeta(meta::kHost, u.nodename);
  writer->SetMeta(meta::kKernel, std::string(u.sysname) + " " + u.release + " " + u.version);
  writer->SetMeta(meta::kStartTime, IsoTimeNow());
}

void WriteRecordingEnd(TraceWriter* writer) { writer->SetMeta(meta::kEndTime, IsoTimeNow()); }

}  // namespace seer::recorder
