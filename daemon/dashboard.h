// The dashboard page the daemon serves at /: one self-contained HTML page
// (inline CSS and script, nothing fetched but the daemon's own /metrics and
// /findings) with event and loss rates over time, the most contended locks
// with their call sites, the targets, and the findings with links to their
// reports.
#pragma once

#include <string>

namespace seer::daemon {

const std::string& DashboardPage();

}  // namespace seer::daemon
