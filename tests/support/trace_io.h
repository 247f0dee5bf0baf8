// Reads a whole trace file into memory, for tests that check what a writer,
// importer or recorder produced. Small traces only: production code streams.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "seer/trace.h"

namespace seer::test {

// Every event of the trace at `path`, in order; its tables into *info if given.
inline Status ReadTrace(const std::string& path, std::vector<Event>* events, TraceInfo* info = nullptr) {
  std::unique_ptr<TraceReader> reader;
  Status s = TraceReader::Open(path, &reader);
  if (!s.ok()) return s;
  if (info) *info = reader->info();
  events->clear();
  std::vector<Event> batch;
  while (true) {
    s = reader->Next(&batch);
    if (!s.ok() || batch.empty()) return s;
    events->insert(events->end(), batch.begin(), batch.end());
  }
}

}  // namespace seer::test
