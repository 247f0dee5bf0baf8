// TEMPORARY test-side fallback, until `seer analyze --format json` carries `file` and
// `line` per event (issue 5, branch `reports`): maps the pcs of a recorded trace to
// "basename:line" with binutils' addr2line and the trace's module map.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>

namespace seer::test {

// Resolves each pc in `pcs` (a return address of a hook or interposed call, as the
// runtime records them) to "basename:line" of the call; pcs outside every module,
// or without line information, are left out of *out. Returns false with *error
// when the trace cannot be read.
bool PcLines(const std::string& trace, const std::set<uint64_t>& pcs, std::map<uint64_t, std::string>* out,
             std::string* error);

}  // namespace seer::test
