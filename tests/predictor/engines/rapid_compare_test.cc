// Counts of RAPID's HB, SHB, WCP and LockSet on stored STD traces, against ours.
// The expected numbers in tests/predictor/engines/rapid/*.expected were obtained by running
// RAPID itself; each file's header says how.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/predictor/engines/engine_support.h"

namespace seer::test {
namespace {

TEST(Rapid, SameCountsOnStoredTraces) {
  const std::filesystem::path dir = std::filesystem::path(SEER_ENGINE_TEST_DATA) / "rapid";
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".expected") continue;
    std::filesystem::path trace = entry.path();
    trace.replace_extension(".std");
    const TraceBuilder b = LoadStd(trace.string());
    std::ifstream in(entry.path());
    for (std::string line; std::getline(in, line);) {
      if (line.empty() || line[0] == '#') continue;
      // <engine> <racy events> <racy locations>   (RAPID's engine class name)
      std::istringstream fields(line);
      std::string rapid_name;
      uint64_t events = 0, locations = 0;
      ASSERT_TRUE(fields >> rapid_name >> events >> locations) << entry.path() << ": " << line;
      const std::string ours = rapid_name == "HB"    ? "hb"
                               : rapid_name == "SHB" ? "shb"
                               : rapid_name == "WCP" ? "wcp"
                                                     : "lockset";
      const predictor::RaceResult r = RunEngine(ours, b);
      EXPECT_EQ(r.racy_events, events) << trace << " " << rapid_name;
      EXPECT_EQ(r.racy_locations, locations) << trace << " " << rapid_name;
      ++checked;
    }
  }
  EXPECT_GE(checked, 24) << "expected 4 engines x at least 6 traces in " << dir;
}

}  // namespace
}  // namespace seer::test
