// The demo pipeline of `make demo` (tools/demo/service.cc built with seer-c++,
// recorded, analysed as JSON), with each way of recording synchronisation. The
// report must name the race's two lines, the deadlock's two acquisitions and
// the lost update's three accesses.
#include <gtest/gtest.h>

#include <set>

#include "recorded_program.h"

namespace seer {
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
  EXPECT_EQ(Shell("SEER_COMPILER=" + compiler + " " + SEER_CXX + " -O1 " + SEER_DEMO_SOURCE + " -o " + prog +
                  " -pthread"),
            0);
  EXPECT_EQ(Shell(std::string(SEER_BIN) + " record -q --sync=" + sync + " -o " + trace + " -- " + prog +
                  " >/dev/null"),
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
}  // namespace seer
