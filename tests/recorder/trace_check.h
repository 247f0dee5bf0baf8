// Test support for the recorder tests: loads a whole trace with TraceReader, counts
// events per kind and per thread, and checks the order the recorder promises
// (lock semantics, fork before a child's events, join after its end).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "seer/event.h"
#include "seer/status.h"
#include "seer/trace.h"

namespace seer::testing {

struct LoadedTrace {
  TraceInfo info;
  std::vector<Event> events;

  uint64_t Count(EventKind kind) const;
  uint64_t Count(EventKind kind, uint32_t tid) const;
  // Seer tids whose count of `kind` is exactly `n`.
  std::vector<uint32_t> ThreadsWith(EventKind kind, uint64_t n) const;
};

Status LoadTrace(const std::string& path, LoadedTrace* out);

// Empty when the order is sound; otherwise the first violation, with its index.
// Checks: no acquire while another thread holds the lock (shared holds excluded
// only by exclusive ones), releases by the holder, kThreadBegin first and
// kThreadEnd last in each thread, a fork before the child's first event, a join
// after the joined thread's end, and event indexes 0, 1, 2, ...
std::string CheckOrder(const LoadedTrace& trace);

// "acquire=2000 release=2000 ..." for failure messages and the dump tool.
std::string KindSummary(const LoadedTrace& trace);

}  // namespace seer::testing
