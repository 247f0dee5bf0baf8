// The demo pipeline of `make demo` (tools/demo/service.cc built with seer-c++,
// recorded, analysed as JSON), with each way of recording synchronisation. The
// report must name the race's two lines, the deadlock's two acquisitions and
// the lost update's three accesses.
#include <gtest/gtest.h>

#include <cstdio>
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

// The default text report is quiet (issue #34): it leads with what is proven
// (the race on g_requests, the deadlock, the lost update, each at its marked
// lines), then what is only predicted, and counts the warnings only the lockset
// heuristic gives in one line; --lockset-warnings lists them. The lost update
// names its variable as race reports do.
TEST(DemoTest, DefaultTextReportLeadsWithTheThreeBugs) {
  const std::string dir = testing::MakeTempDir("demo-quiet");
  ASSERT_FALSE(dir.empty());
  const std::string prog = dir + "/service", trace = dir + "/demo.seer";
  ASSERT_EQ(Shell(std::string(SEER_CXX) + " -O1 " + SEER_DEMO_SOURCE + " -o " + prog + " -pthread"), 0);
  ASSERT_EQ(Shell(std::string(SEER_BIN) + " record -q --sync=inproc -o " + trace + " -- " + prog + " >/dev/null"), 0);
  auto analyze = [&](const std::string& flags) {
    const std::string text = dir + "/report.txt";
    EXPECT_EQ(Shell(std::string(SEER_BIN) + " analyze " + flags + " -o " + text + " " + trace), 0);
    std::ifstream in(text);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  const std::string quiet = analyze(""), all = analyze("--lockset-warnings");
  std::filesystem::remove_all(dir);

  // Where each part starts.
  const size_t findings = quiet.find("\nfindings: proven: ");
  const size_t race = quiet.find("\nWARNING: data race");
  const size_t deadlocks = quiet.find("\ndeadlocks: 1\n");
  const size_t atomicity = quiet.find("\natomicity violations: ");
  const size_t predicted = quiet.find("\n  predicted only: ");
  const size_t lockset = quiet.find("\nlockset-only warnings: ");
  ASSERT_NE(findings, std::string::npos) << quiet;
  ASSERT_NE(race, std::string::npos) << quiet;
  ASSERT_NE(deadlocks, std::string::npos) << quiet;
  ASSERT_NE(atomicity, std::string::npos) << quiet;
  ASSERT_NE(lockset, std::string::npos) << quiet;
  EXPECT_LT(findings, race);
  // The first warning is the proven race between the marked lines.
  const std::string first_race = quiet.substr(race, deadlocks - race);
  EXPECT_NE(first_race.find("  proven: "), std::string::npos) << first_race;
  EXPECT_NE(first_race.find(Line("DEMO-RACE-READ")), std::string::npos) << first_race;
  EXPECT_NE(first_race.find(Line("DEMO-RACE-WRITE")), std::string::npos) << first_race;
  EXPECT_EQ(first_race.find("predicted only"), std::string::npos) << first_race;
  EXPECT_LT(race, deadlocks);
  EXPECT_LT(deadlocks, atomicity);
  const std::string lost_update = quiet.substr(atomicity, lockset - atomicity);
  EXPECT_NE(lost_update.find(Line("DEMO-ATOMICITY-READ")), std::string::npos) << lost_update;
  EXPECT_NE(lost_update.find("    Location is global '(anonymous namespace)::g_accounts' of size "), std::string::npos)
      << lost_update;
  // The deadlock is also a lock-order inversion: counted as the deadlock, not shown twice.
  EXPECT_NE(quiet.find("\nlock-order inversions: 1 (is the deadlock above)\n"), std::string::npos) << quiet;
  EXPECT_EQ(quiet.find("  lock-order inversion on locks "), std::string::npos) << quiet;
  if (predicted != std::string::npos) {
    EXPECT_LT(atomicity, predicted) << quiet;
  }
  EXPECT_LT(predicted == std::string::npos ? atomicity : predicted, lockset);

  // No listed warning stands on the lockset heuristic alone; the one line counts them.
  EXPECT_EQ(quiet.find("predicted only: lockset (heuristic);"), std::string::npos) << quiet;
  unsigned long hidden = 0;
  ASSERT_EQ(std::sscanf(quiet.c_str() + lockset, "\nlockset-only warnings: %lu race pairs", &hidden), 1) << quiet;
  EXPECT_GT(hidden, 0u);
  auto count = [](const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count(all, "\nWARNING: data race"), count(quiet, "\nWARNING: data race") + hidden) << all;
  EXPECT_EQ(count(all, "predicted only: lockset (heuristic);"), hidden) << all;
  EXPECT_EQ(all.find("\nlockset-only warnings: "), std::string::npos) << all;
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
