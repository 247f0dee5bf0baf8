// The demo pipeline of `make demo` (tools/demo/service.cc built with seer-c++,
// recorded, analysed as JSON), with each way of recording synchronisation. The
// report must name the race's two lines, the deadlock's two acquisitions and
// the lost update's three accesses.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <set>
#include <sstream>

#include "recorded_program.h"

namespace seer::predictor {
namespace {

using nlohmann::json;
using testing::MarkedLine;
using testing::Shell;
using testing::Where;

std::string Line(const char* marker) { return "service.cc:" + std::to_string(MarkedLine(SEER_DEMO_SOURCE, marker)); }

// Every "file:line" in an event's stack.
std::set<std::string> StackLines(const json& event) {
  std::set<std::string> out;
  for (const json& f : event["stack"]) out.insert(Where(f));
  return out;
}

json RecordDemo(const std::string& sync, const std::string& compiler = "gcc") {
  const std::string dir = testing::MakeTempDir("demo");
  EXPECT_FALSE(dir.empty());
  const std::string prog = dir + "/service", trace = dir + "/demo.seer", report = dir + "/report.json";
  EXPECT_EQ(
      Shell("SEER_COMPILER=" + compiler + " " + SEER_CXX + " -O1 " + SEER_DEMO_SOURCE + " -o " + prog + " -pthread"),
      0);
  EXPECT_EQ(Shell(std::string(SEER_BIN) + " record -q --sync=" + sync + " -o " + trace + " -- " + prog + " >/dev/null"),
            0);
  EXPECT_EQ(Shell(std::string(SEER_BIN) + " analyze --format json -o " + report + " " + trace), 0);
  json j = testing::ReadJson(report);
  std::filesystem::remove_all(dir);
  return j;
}

bool HasRace(const json& report, const std::string& a, const std::string& b) {
  for (const auto& [engine, result] : report["races"].items())
    for (const json& p : result["pairs"]) {
      const std::string first = Where(p["first"]), second = Where(p["second"]);
      if ((first == a && second == b) || (first == b && second == a)) return true;
    }
  return false;
}

bool HasDeadlock(const json& report) {
  for (const json& d : report["deadlocks"]) {
    std::set<std::string> held, wanted;
    for (const json& t : d["cycle"]) {
      for (const std::string& w : StackLines(t["held_acquire"])) held.insert(w);
      for (const std::string& w : StackLines(t["blocked_acquire"])) wanted.insert(w);
    }
    if (held.count(Line("DEMO-DEADLOCK-FIRST")) && wanted.count(Line("DEMO-DEADLOCK-SECOND"))) return true;
  }
  return false;
}

bool HasLostUpdate(const json& report) {
  for (const json& a : report["atomicity"])
    if (Where(a["local_first"]) == Line("DEMO-ATOMICITY-READ") && Where(a["remote"]) == Line("DEMO-ATOMICITY-REMOTE") &&
        Where(a["local_second"]) == Line("DEMO-ATOMICITY-WRITE"))
      return true;
  return false;
}

TEST(DemoTest, InprocReportNamesTheThreeBugs) {
  const json report = RecordDemo("inproc");
  ASSERT_TRUE(report.is_object());
  EXPECT_TRUE(HasRace(report, Line("DEMO-RACE-WRITE"), Line("DEMO-RACE-READ"))) << report["races"].dump(1);
  EXPECT_TRUE(HasDeadlock(report)) << report["deadlocks"].dump(1);
  EXPECT_TRUE(HasLostUpdate(report)) << report["atomicity"].dump(1);
}

// clang 14 writes DWARF 5 without .debug_aranges for its units; libdw's own
// scope look-up finds nothing there (the symbolizer walks the DIE tree instead).
TEST(DemoTest, ClangBuildReportNamesTheThreeBugs) {
  const json report = RecordDemo("inproc", "clang");
  ASSERT_TRUE(report.is_object());
  EXPECT_TRUE(HasRace(report, Line("DEMO-RACE-WRITE"), Line("DEMO-RACE-READ"))) << report["races"].dump(1);
  EXPECT_TRUE(HasDeadlock(report)) << report["deadlocks"].dump(1);
  EXPECT_TRUE(HasLostUpdate(report)) << report["atomicity"].dump(1);
}

// The text report of a recorded run names each lock of the deadlock by its
// global and each acquisition by the program's own function and line (not a raw
// pc, not the inlined std::mutex::lock), and each race warning says what proves it.
TEST(DemoTest, TextReportNamesLockSitesAndProofs) {
  const std::string dir = testing::MakeTempDir("demo-text");
  ASSERT_FALSE(dir.empty());
  const std::string prog = dir + "/service", trace = dir + "/demo.seer", text = dir + "/report.txt";
  ASSERT_EQ(Shell(std::string(SEER_CXX) + " -O1 " + SEER_DEMO_SOURCE + " -o " + prog + " -pthread"), 0);
  ASSERT_EQ(Shell(std::string(SEER_BIN) + " record -q --sync=inproc -o " + trace + " -- " + prog + " >/dev/null"), 0);
  ASSERT_EQ(Shell(std::string(SEER_BIN) + " analyze -o " + text + " " + trace), 0);
  std::ifstream in(text);
  const std::string report((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::filesystem::remove_all(dir);

  bool held = false, wanted = false;
  size_t lines = 0;
  std::istringstream lines_in(report);
  for (std::string line; std::getline(lines_in, line);) {
    if (line.find(" holds ") == std::string::npos || line.find(" and wants ") == std::string::npos) continue;
    ++lines;
    EXPECT_EQ(line.find("location "), std::string::npos) << line;
    EXPECT_EQ(line.find("gthr-default.h"), std::string::npos) << line;
    EXPECT_NE(line.find("g_accounts"), std::string::npos) << line;
    held |= line.find("(acquired at (anonymous namespace)::Transfer(") != std::string::npos &&
            line.find(Line("DEMO-DEADLOCK-FIRST") + ", event") != std::string::npos;
    wanted |= line.find(Line("DEMO-DEADLOCK-SECOND") + ", event") != std::string::npos;
  }
  EXPECT_EQ(lines, 2u) << report;
  EXPECT_TRUE(held) << report;
  EXPECT_TRUE(wanted) << report;

  // Every warning is followed by what proves it; the proven ones come first.
  size_t warnings = 0, proofs = 0;
  bool predicted_seen = false, proven_after_predicted = false;
  std::istringstream again(report);
  for (std::string line, previous; std::getline(again, line); previous = line) {
    if (line.rfind("WARNING: data race", 0) == 0) ++warnings;
    if (previous.rfind("WARNING: data race", 0) != 0) continue;
    const bool proven = line.rfind("  proven: ", 0) == 0, predicted = line.rfind("  predicted only: ", 0) == 0;
    proofs += proven || predicted;
    proven_after_predicted |= proven && predicted_seen;
    predicted_seen |= predicted;
  }
  EXPECT_GT(warnings, 0u);
  EXPECT_EQ(proofs, warnings) << report;
  EXPECT_FALSE(proven_after_predicted) << report;
}

// Real probes: the sync events come from the uprobes, the accesses from the
// runtime's rings, placed among them by the probes' stamps.
TEST(DemoTest, EbpfReportNamesTheThreeBugs) {
  if (geteuid() != 0) GTEST_SKIP() << "SKIPPED LOUDLY: --sync=ebpf needs root (or CAP_BPF+CAP_PERFMON)";
  const json report = RecordDemo("ebpf");
  ASSERT_TRUE(report.is_object());
  EXPECT_TRUE(HasRace(report, Line("DEMO-RACE-WRITE"), Line("DEMO-RACE-READ"))) << report["races"].dump(1);
  EXPECT_TRUE(HasDeadlock(report)) << report["deadlocks"].dump(1);
  EXPECT_TRUE(HasLostUpdate(report)) << report["atomicity"].dump(1);
}

}  // namespace
}  // namespace seer::predictor
