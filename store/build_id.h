// The GNU build-id of an ELF file: what the trace's module table records for
// every mapped module (ModuleInfo::build_id), and what the symbolizer checks a
// file on disk against before it trusts its debug information.
#pragma once

#include <string>

namespace seer::store {

// The build-id note as lower-case hex; empty when the file cannot be read, is
// not a 64-bit ELF file or carries no build-id.
std::string ReadBuildId(const std::string& path);

}  // namespace seer::store
