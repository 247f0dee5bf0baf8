// A window's analysis in a process of its own: the seer binary started again
// with a hidden subcommand (kAnalysisSubcommand), at SCHED_IDLE priority. A
// child, not a thread, so that a stop can end an analysis at once (SIGKILL;
// the engines have no cancellation point and their final passes can run for
// minutes), and so that an analysis that runs out of memory or crashes takes
// only itself down. The request and the answer are JSON over a socket pair
// (the child's stdin and stdout).
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "daemon/window_analysis.h"
#include "seer/status.h"

namespace seer::daemon {

// `seer __analyze-window`: what the cli registers (hidden) and the service runs.
inline constexpr char kAnalysisSubcommand[] = "__analyze-window";

// A test hook, read by the analysis process only: wait this many milliseconds
// before analysing, so that tests can stop a daemon with analyses queued and
// one in progress. Never set in production.
inline constexpr char kTestSlowAnalysisEnv[] = "SEER_TEST_SLOW_ANALYSIS_MS";

struct AnalysisRequest {
  std::string window_path;
  std::vector<std::string> engines;    // predictor registry names
  std::vector<std::string> have_html;  // signatures the service has an HTML report of already
};

// Runs `program` (the seer binary: "/proc/self/exe", the very file this
// process runs even if it was replaced since) with kAnalysisSubcommand on the
// request and waits for the answer, checking `cancel` every 100 ms. When
// `cancel` becomes true the child is killed and *cancelled is set (the status
// then says so). *cpu_seconds gets the child's user + system time. Errors: the
// child cannot start, dies, or answers something malformed; or the analysis
// itself failed (its status, passed on).
Status AnalyzeInChildProcess(const std::string& program, const AnalysisRequest& request,
                             const std::atomic<bool>& cancel, WindowAnalysis* out, double* cpu_seconds,
                             bool* cancelled);

// The child's side: reads the request from stdin, analyses, writes the answer
// to stdout. Returns the process's exit code (0 when an answer was written,
// analysis errors included; 2 when the request could not be read).
int AnalysisProcessMain();

}  // namespace seer::daemon
