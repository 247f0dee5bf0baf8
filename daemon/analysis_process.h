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

#include "daemon/config.h"
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

// What starts an analysis process: `program kAnalysisSubcommand` here, or,
// with `slurm` on, `srun --quiet --nodes=1 --ntasks=1 --job-name=seer-window
// [--partition=P] ARGS... SEER kAnalysisSubcommand`, whose job step runs it on
// a node of the cluster with the request on its stdin and the answer on its
// stdout, as srun forwards them. SEER is slurm.seer, else `self_path` (this
// daemon's binary, at the same path on the nodes).
struct AnalysisCommand {
  std::vector<std::string> argv;
  bool remote = false;  // through srun: the analysis process is not our child
};
AnalysisCommand MakeAnalysisCommand(const std::string& program, const SlurmConfig& slurm, const std::string& self_path);

// Runs `command` on the request and waits for the answer, checking `cancel`
// every 100 ms. When `cancel` becomes true the child is stopped (killed; srun
// is asked with SIGTERM first, which it passes on to its job step) and
// *cancelled is set (the status then says so). *cpu_seconds gets the
// analysis's user + system time (as the analysis process measured it itself:
// the child's own is srun's when remote). Errors: the child cannot start,
// dies, or answers something malformed; or the analysis itself failed (its
// status, passed on).
Status AnalyzeInChildProcess(const AnalysisCommand& command, const AnalysisRequest& request,
                             const std::atomic<bool>& cancel, WindowAnalysis* out, double* cpu_seconds,
                             bool* cancelled);

// The child's side: reads the request from stdin, analyses, writes the answer
// to stdout. Returns the process's exit code (0 when an answer was written,
// analysis errors included; 2 when the request could not be read).
int AnalysisProcessMain();

}  // namespace seer::daemon
