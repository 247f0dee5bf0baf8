// Reads a whole trace through TraceReader, as `seer info` and `seer analyze` do,
// and condenses everything read into a digest, so that a damaged copy can be
// compared with its original.
#pragma once

#include <cstdint>
#include <string>

#include "seer/status.h"

namespace seer::test {

struct TraceDigest {
  uint64_t events = 0;
  uint64_t hash = 0;  // of the tables, every event and the names the events use
  bool operator==(const TraceDigest& o) const { return events == o.events && hash == o.hash; }
};

// Opens `path`, reads every table and decodes every chunk; looks up the name of
// every thread, lock and variable the events use.
Status ReadWholeTrace(const std::string& path, TraceDigest* digest);

// Writes a trace of 40,000 random events in chunks of 500 events: many chunks,
// so its chunks table has branch pages and values in overflow pages.
Status WriteManyChunks(const std::string& path);

}  // namespace seer::test
