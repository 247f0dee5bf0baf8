// The target's loaded modules, read from /proc/<pid>/maps, with their GNU
// build-ids: what the report needs to symbolise the recorded program counters.
#pragma once

#include <string>
#include <sys/types.h>
#include <vector>

#include "seer/status.h"
#include "seer/trace.h"

namespace seer {

// Executable file mappings of `pid` (one entry per mapping).
Status ReadModules(pid_t pid, std::vector<ModuleInfo>* out);

// The hex GNU build-id of an ELF file; empty when it has none or is not ELF.
std::string ReadBuildId(const std::string& path);

}  // namespace seer
