// What the service keeps across restarts, in its window directory: which
// windows are done (analysed, or failed for good), and the merged findings
// with their first seen, last seen and count. One file, DIR/seer-state.json
// (0600), replaced atomically after each window (written to a temporary file,
// synced, renamed over it): a window's findings and its being done are
// recorded together, so a crash before the rename leaves out both (the window
// is analysed again at the next start) and never counts a window twice. The
// HTML report of each finding is a file of its own, DIR/reports/ID.html,
// written once (it never changes), so the state file stays small.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "daemon/findings_registry.h"
#include "seer/status.h"

namespace seer::daemon {

inline constexpr char kStateFileName[] = "seer-state.json";
inline constexpr char kReportsDirName[] = "reports";

struct ServiceState {
  std::set<std::string> windows_done;  // window file names (not paths)
  std::vector<MergedFinding> findings;
};

// Writes the state file, and the HTML reports not on disk yet.
Status SaveServiceState(const std::string& dir, const ServiceState& state);

// Reads the state file and the findings' HTML reports (a missing report
// leaves that finding without HTML). NotFound: no state file (a directory
// never used, or used before the state was kept). Corruption: a file that is
// not a whole, well-formed state, saying what is wrong; *state is then empty.
Status LoadServiceState(const std::string& dir, ServiceState* state);

// Writes `data` to `path` (mode 0600) so that `path` holds either its old
// content or all of `data`, even across a crash or power cut.
Status WriteFileAtomically(const std::string& path, const std::string& data);

}  // namespace seer::daemon
