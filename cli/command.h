// How subcommands plug into the `seer` binary: each registers itself on the CLI11
// app and, when chosen, sets `run` to the work it does. The exit code contract:
// 0 ran fine, 1 findings with --fail-on-findings (or the target's own failure for
// `record`), 2 usage or input error.
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

namespace seer::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFindings = 1;
inline constexpr int kExitError = 2;

struct Runner {
  std::function<int()> run;
};

}  // namespace seer::cli
