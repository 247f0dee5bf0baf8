// What the --watch tests (watch_test.cc, watch_attach_test.cc) share: where
// their programs are, and the numbers they read out of seer's output.
#pragma once

#include <cstdlib>
#include <string>

namespace seer::test {

// A program of tests/runtime/programs, as built.
inline std::string WatchProgram(const std::string& name) { return std::string(SEER_RT_TEST_PROGRAMS) + "/" + name; }

// The number after `prefix` in `text`, -1 when absent.
inline long NumberAfter(const std::string& text, const std::string& prefix) {
  const size_t at = text.find(prefix);
  return at == std::string::npos ? -1 : std::strtol(text.c_str() + at + prefix.size(), nullptr, 10);
}

}  // namespace seer::test
