// The JSON form of a window's analysis (its findings and contention): what
// the analysis process hands back to the service (analysis_process), and the
// findings the service keeps across restarts (service_state).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "daemon/window_analysis.h"
#include "seer/status.h"

namespace seer::daemon {

// The text of `j`; bytes that are not UTF-8 (a symbol or path can hold them)
// become U+FFFD instead of an exception.
std::string DumpJson(const nlohmann::json& j, int indent = -1);

nlohmann::json FindingToJson(const FindingRecord& f);
// Corruption naming the field that is missing or of the wrong type.
Status FindingFromJson(const nlohmann::json& j, FindingRecord* out);

nlohmann::json AnalysisToJson(const WindowAnalysis& a);
Status AnalysisFromJson(const nlohmann::json& j, WindowAnalysis* out);

}  // namespace seer::daemon
