// Runs a target program once and collects what `seer fuzz` compares between
// runs: its exit status or fatal signal, and its standard output; for a
// server, also those of the load command that drives it.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "seer/status.h"

namespace seer::cli {

struct ProgramResult {
  int exit_code = 0;  // when it exited
  int signal = 0;     // the signal that killed it, 0 when it exited
  bool timed_out = false;
  std::string out;  // its standard output (its standard error is discarded)

  // With a load command (RunOptions::load):
  bool load_ran = false;  // the program listened, and the load was started
  int load_port = 0;      // the TCP port the program listened on
  int load_exit_code = 0;
  int load_signal = 0;
  std::string load_out;  // the load's standard output
};

struct RunOptions {
  std::vector<std::string> argv;
  std::vector<std::pair<std::string, std::string>> env;  // added; an empty value removes the variable
  double timeout_s = 10;                                 // the whole run, load included: then the program is killed
  // A shell command run (`/bin/sh -c`) once the program listens on a TCP port,
  // with SEER_LOAD_PORT set to that port; when it ends, the program gets
  // SIGTERM (a server does not end by itself). "" for none.
  std::string load;
};

// Runs the program (and its load) and kills it after the timeout. An error
// only when it could not be started.
Status RunProgram(const RunOptions& options, ProgramResult* result);

// "exit 3", "signal 11 (Segmentation fault)", "timed out".
std::string DescribeEnd(const ProgramResult& r);
// How the load ended ("exit 0", "signal 15 (Terminated)"), or that it never started.
std::string DescribeLoad(const ProgramResult& r);

// The TCP ports (IPv4 and IPv6) on which process `pid` has a listening socket,
// from /proc/PID/net/tcp{,6} and the socket inodes among its descriptors.
std::vector<int> ListeningPorts(int pid);

}  // namespace seer::cli
