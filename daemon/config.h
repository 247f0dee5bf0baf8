// The service's configuration (`seer daemon`, docs/daemon.md): where it
// listens, where windows go, how long a window is, the duty cycle, retention
// and the targets. Filled from a TOML file, from flags, or both (flags win).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "seer/status.h"

namespace seer::daemon {

// One program to record: exactly one of pid, name or command is set.
struct TargetConfig {
  pid_t pid = 0;                     // a running process (recorded by injection)
  std::string name;                  // a running process by executable name, found again when it restarts
  std::vector<std::string> command;  // launched by the daemon, with the preloaded runtime

  std::string Describe() const;  // "pid 42", "name memcached", "command ./prog"
};

struct RetentionPolicy {
  uint64_t max_windows = 100;          // window files kept per directory (0: no limit)
  double max_age_s = 7 * 24 * 3600.0;  // older window files are removed (0: no limit)
  uint64_t max_bytes = 1ull << 30;     // total size of the window files (0: no limit)
  // Recording pauses while the file system holding the directory has less
  // free space than this (committed windows stay).
  uint64_t min_free_bytes = 256ull << 20;
};

// [slurm]: each window's analysis runs as a Slurm job step (`srun`) on a node
// of the cluster rather than in a child process of the daemon, for a fleet
// whose windows outgrow one host (docs/daemon.md, "Analyses on a cluster").
// The window directory must be on a file system the nodes share, at the same
// path, and seer installed on them.
struct SlurmConfig {
  bool on = false;                // a [slurm] table was given
  std::string srun = "srun";      // the command that starts the job step (looked up in PATH)
  std::string partition;          // srun --partition, when set
  std::string seer;               // seer on the nodes; empty: the path of this daemon's own binary
  std::vector<std::string> args;  // more srun options ("--time=10", "--mem=4G", "--account=ops")
  bool operator==(const SlurmConfig&) const = default;
};

struct ServiceConfig {
  std::string listen_host = "127.0.0.1";
  int listen_port = 9464;
  std::string dir;       // the window directory (created 0700)
  double window_s = 10;  // length of a recorded window
  // Duty cycle: record `duty_on_s` of every `duty_period_s`; a period of 0
  // ("continuous") records all the time.
  double duty_on_s = 2;
  double duty_period_s = 60;
  RetentionPolicy retention;
  std::string analyses = "deadlock";  // engines run over each window (predictor registry names)
  // Memory for recorded events not yet merged into windows (the recorder's
  // spool, recorder/recorder.h): an always-on service keeps it small; past 3/4
  // of it the merging leaves idle priority.
  uint64_t spool_bytes = 256ull << 20;
  // Also load the eBPF futex tracepoints (RecordOptions::inproc.futex_tracepoints):
  // futex calls a target issues without libc's syscall(). Detached in the off
  // periods; while attached they slow every system call on the machine.
  bool futex_tracepoints = false;
  // watch = "2%": races caught in the act in the targets the daemon launches
  // (docs/recording.md, "Races caught in the act"), at that share of each
  // thread's time; 0: off. Attached processes (pid, name) are not watched.
  double watch_percent = 0;
  std::vector<TargetConfig> targets;
  SlurmConfig slurm;
  // The program that analyses a window in a child process: the seer binary
  // (analysis_process.h). Not in the file: the running binary itself, which
  // stays the same file even if it is replaced on disk meanwhile.
  std::string analysis_program = "/proc/self/exe";
};

// "10s", "500ms", "2m", "1h", or a bare number of seconds.
Status ParseDuration(const std::string& text, double* seconds);
// "2s/60s": *on of every *period; "continuous" records all the time.
Status ParseDutyCycle(const std::string& text, double* on, double* period);
// "127.0.0.1:9464", "[::1]:9464" or ":9464" (127.0.0.1).
Status ParseListen(const std::string& text, std::string* host, int* port);
// "512M", "2G", "4096" (bytes).
Status ParseSize(const std::string& text, uint64_t* bytes);

// Reads a TOML file into *config (keys it does not set keep their values).
// Errors name the file, the line and the key.
Status LoadConfigFile(const std::string& path, ServiceConfig* config);

// Checks what no single key can: a directory, at least one target, each
// target one of pid, name or command, an on time within its period.
Status ValidateConfig(const ServiceConfig& config);

}  // namespace seer::daemon
