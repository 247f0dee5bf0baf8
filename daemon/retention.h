// Retention of the window directory: the oldest window files go first when
// there are more than the policy keeps, when they are older than it keeps, or
// when all of them together are larger than it allows.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "daemon/config.h"
#include "seer/status.h"

namespace seer::daemon {

// Creates `dir` (and its parents) with mode 0700, or checks that an existing
// one is a directory and sets it to 0700.
Status PrepareWindowDir(const std::string& dir);

struct WindowDirUsage {
  uint64_t windows = 0;
  uint64_t bytes = 0;
};

// Removes window files (window-*.seer) of `dir` the policy does not keep, the
// oldest first, never the `keep` file (the window being written). `now` is
// seconds since the epoch. *removed gets the paths removed; *usage what is left.
Status EnforceRetention(const std::string& dir, const RetentionPolicy& policy, double now, const std::string& keep,
                        std::vector<std::string>* removed, WindowDirUsage* usage);

}  // namespace seer::daemon
