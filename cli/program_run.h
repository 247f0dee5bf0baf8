// Runs a target program once and collects what `seer fuzz` compares between
// runs: its exit status or fatal signal, and its standard output.
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
};

// Runs `argv` with `env` added to (or, with an empty value, removed from) this
// process's environment, and kills it after `timeout_s` seconds. An error only
// when it could not be started.
Status RunProgram(const std::vector<std::string>& argv, const std::vector<std::pair<std::string, std::string>>& env,
                  double timeout_s, ProgramResult* result);

// "exit 3", "signal 11 (Segmentation fault)", "timed out".
std::string DescribeEnd(const ProgramResult& r);

}  // namespace seer::cli
