// Import of STD text traces (RAPID's `thread|op(decor)|loc` format) into a seer
// trace. Names map to dense ids in order of first appearance and are kept in the
// trace, so that export gives back the same text. docs/trace-format.md has the mapping.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "seer/status.h"
#include "seer/trace.h"

namespace seer::interop {

struct ImportStats {
  uint64_t lines = 0;  // lines read, blank ones included
  uint64_t events = 0;
  uint64_t threads = 0;
  uint64_t locks = 0;
  uint64_t variables = 0;
};

// Reads `in_path` and appends its events to `w` (created by the caller, who also
// closes it). Sets the tables and metadata. Errors are InvalidArgument naming
// `in_path:line`; on error the writer holds a partial trace the caller discards.
// `progress`, if set, is called now and then with the number of lines read.
Status ImportStd(const std::string& in_path, TraceWriter* w, ImportStats* stats,
                 const std::function<void(uint64_t lines)>& progress = {});

}  // namespace seer::interop
