// The race suite: every program under programs/ is recorded with
// `seer record --sync=inproc`, analysed with `seer analyze --format json`, and its
// reported race pairs (by source basename:line) checked against the markers in its
// source (expectations.h). A second test checks that each trace exported to STD and
// imported back gives the engines the same results.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "expectations.h"
#include "tests/support/program_suite.h"

namespace seer::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const char* const kEngines[] = {"hb", "shb", "wcp", "w3-linear"};

// A program source and the compiler family its binary was built with.
struct Program {
  std::string source;    // file name under programs/
  std::string compiler;  // "gcc" or "clang"
};

void PrintTo(const Program& p, std::ostream* os) { *os << p.source << " (" << p.compiler << ")"; }

// The compilers the suite was built with (tests/races/CMakeLists.txt: the
// sanitizer pass builds gcc's only).
std::vector<std::string> Compilers() {
  if (SEER_RACES_WITH_CLANG) return {"gcc", "clang"};
  return {"gcc"};
}

// Every source with each compiler, sorted: the test parameters.
std::vector<Program> ListPrograms() {
  std::vector<Program> programs;
  for (const std::string& name : ListSources(SEER_RACES_SRC))
    for (const std::string& compiler : Compilers()) programs.push_back({name, compiler});
  return programs;
}

// `wanted`, less the programs of a compiler the suite was not built with.
std::vector<Program> Built(const std::vector<Program>& wanted) {
  const std::vector<std::string> compilers = Compilers();
  std::vector<Program> built;
  for (const Program& p : wanted)
    if (std::find(compilers.begin(), compilers.end(), p.compiler) != compilers.end()) built.push_back(p);
  return built;
}

// An unordered pair of source locations ("file:line"), smaller first.
using LocPair = std::pair<std::string, std::string>;

LocPair MakePair(std::string a, std::string b) {
  if (b < a) std::swap(a, b);
  return {a, b};
}

std::string Describe(const std::set<LocPair>& pairs) {
  std::string s;
  for (const auto& [a, b] : pairs) s += " {" + a + ", " + b + "}";
  return s.empty() ? " (none)" : s;
}

bool HasSourceLine(const json& event) {
  return event.contains("file") && event.contains("line") && event["file"].is_string() &&
         !event["file"].get<std::string>().empty() && event["line"].is_number();
}

// "file:line" of a reported event, or "" when the report has no source line for
// it: its innermost frame in the program's own file `file` (an access made by an
// inlined library function, such as gcc's AVX intrinsics in avxintrin.h, counts at
// the program's line that calls it), else its innermost frame.
std::string SourceOf(const json& event, const std::string& file) {
  if (event.contains("stack") && event["stack"].is_array())
    for (const json& frame : event["stack"])
      if (frame["file"].is_string() && frame["line"].is_number() && Basename(frame["file"].get<std::string>()) == file)
        return file + ":" + std::to_string(frame["line"].get<long>());
  if (!HasSourceLine(event)) return "";
  return Basename(event["file"].get<std::string>()) + ":" + std::to_string(event["line"].get<long>());
}

class RaceSuiteTest : public ::testing::TestWithParam<Program> {
 protected:
  void SetUp() override {
    if (geteuid() != 0) {
      GTEST_SKIP() << "\n*** SKIPPED: the race suite runs as root (as in CI); this process is uid " << geteuid()
                   << ". Run it as root to check the suite. ***";
    }
    const std::string stem = fs::path(GetParam().source).stem().string();
    source_ = std::string(SEER_RACES_SRC) + "/" + GetParam().source;
    program_ =
        std::string(SEER_RACES_OUT) + "/" + stem + (GetParam().compiler == "gcc" ? "" : "." + GetParam().compiler);
    std::string error;
    ASSERT_TRUE(ParseExpectations(source_, &expect_, &error)) << error;
    scratch_ = std::make_unique<ScratchDir>("seer-races-" + stem + "-" + GetParam().compiler);
  }

  std::string Path(const std::string& name) const { return scratch_->Path(name); }
  int Run(const std::string& command, std::string* out) const { return scratch_->Run(command, out); }

  // Records the program into T.seer (asserting a clean, lossless run).
  void Record(const std::string& sync = "inproc") {
    std::string out;
    const int code = Run(std::string(SEER_BINARY) + " record --sync=" + sync + " -o T.seer -- " + program_, &out);
    ASSERT_EQ(code, 0) << "seer record of " << program_ << " exited " << code
                       << " (a program exits non-zero when its scenario did not happen):\n"
                       << out;
  }

  // `seer analyze <trace> --format json` with the four race engines.
  void Analyze(const std::string& trace, json* report) {
    std::string out;
    const std::string json_path = Path(fs::path(trace).stem().string() + ".json");
    const int code = Run(std::string(SEER_BINARY) + " analyze " + trace +
                             " --format json --analysis hb,shb,wcp,w3-linear -o " + json_path,
                         &out);
    ASSERT_EQ(code, 0) << "seer analyze " << trace << " exited " << code << ":\n" << out;
    *report = json::parse(ReadWholeFile(json_path), nullptr, false);
    ASSERT_FALSE(report->is_discarded()) << "seer analyze wrote invalid JSON to " << json_path;
    ASSERT_TRUE(report->contains("races")) << report->dump(2);
  }

  // The pairs an engine reports, by source location.
  std::set<LocPair> SourcePairs(const json& report, const std::string& engine) {
    std::set<LocPair> pairs;
    const json& races = report["races"];
    EXPECT_TRUE(races.contains(engine)) << "no results for engine " << engine;
    if (!races.contains(engine)) return pairs;
    for (const json& p : races[engine]["pairs"]) {
      const std::string a = SourceOf(p["first"], expect_.file), b = SourceOf(p["second"], expect_.file);
      EXPECT_FALSE(a.empty() || b.empty())
          << engine << " reports a pair without a source line (file/line): " << p.dump();
      pairs.insert(MakePair(a, b));
    }
    return pairs;
  }

  std::string Name() const { return GetParam().source + " (" + GetParam().compiler + ")"; }

  std::string Loc(int line) const { return expect_.file + ":" + std::to_string(line); }

  bool IsMarked(const std::string& loc) const {
    for (int line : expect_.marked_lines)
      if (loc == Loc(line)) return true;
    return false;
  }

  // The report of T.seer names exactly the races the source marks.
  void CheckReport();

  std::string source_, program_;
  Expectations expect_;
  std::unique_ptr<ScratchDir> scratch_;
};

void RaceSuiteTest::CheckReport() {
  json report;
  ASSERT_NO_FATAL_FAILURE(Analyze("T.seer", &report));
  ASSERT_EQ(report["trace"]["lost_events"].get<long>(), 0) << "the recording lost events: " << report["trace"].dump();
  ASSERT_TRUE(report["trace"]["complete"].get<bool>());
  const long threads = report["trace"]["threads"].get<long>();

  std::map<std::string, std::set<LocPair>> found;
  for (const char* engine : kEngines) found[engine] = SourcePairs(report, engine);

  if (expect_.none) {
    for (const char* engine : {"hb", "shb", "wcp"})
      EXPECT_TRUE(found[engine].empty()) << engine
                                         << " reports races in a race-free program:" << Describe(found[engine]);
    if (threads <= 2) {
      EXPECT_TRUE(found["w3-linear"].empty())
          << "w3-linear reports races in a race-free two-thread program:" << Describe(found["w3-linear"]);
    }
  } else {
    for (const char* engine : {"hb", "wcp", "w3-linear"}) {
      std::string misses;
      for (const ExpectedPair& e : expect_.pairs) {
        const LocPair p = MakePair(Loc(e.first_line), Loc(e.second_line));
        const bool optional = expect_.writer_ordered.count(e.label) && std::string(engine) == "w3-linear";
        if (!optional && !found[engine].count(p)) misses += " {" + p.first + ", " + p.second + "}";
      }
      auto known = expect_.known_failures.find(engine);
      if (known != expect_.known_failures.end()) {
        EXPECT_FALSE(misses.empty()) << engine << " now reports every expected race: remove the known-failure marker ("
                                     << known->second << ")";
        if (!misses.empty())
          std::cout << "[ KNOWN FAILURE ] " << Name() << ": " << engine << " misses" << misses << " (" << known->second
                    << "); it reports:" << Describe(found[engine]) << "\n";
        continue;
      }
      EXPECT_TRUE(misses.empty()) << engine << " misses the expected race(s)" << misses
                                  << "; it reports:" << Describe(found[engine]);
    }
    // SHB stops trusting the trace after a race, so it may report fewer pairs, but
    // never none of them; pairs that a read's writer orders are not its to report
    // (a program with only those leaves SHB unchecked here).
    bool any = false, checked = false;
    for (const ExpectedPair& e : expect_.pairs) {
      if (expect_.writer_ordered.count(e.label)) continue;
      checked = true;
      any = any || found["shb"].count(MakePair(Loc(e.first_line), Loc(e.second_line))) > 0;
    }
    if (checked) {
      EXPECT_TRUE(any) << "shb reports none of the expected races; it reports:" << Describe(found["shb"]);
    }
  }

  // No false race: every HB pair joins two marked lines.
  for (const auto& [a, b] : found["hb"]) {
    EXPECT_TRUE(IsMarked(a) && IsMarked(b)) << "hb reports an unexpected race {" << a << ", " << b << "}";
  }
}

TEST_P(RaceSuiteTest, ReportsExactlyTheExpectedRaces) {
  ASSERT_NO_FATAL_FAILURE(Record());
  CheckReport();
}

// Sync events from real uprobes, accesses from the runtime's rings, joined by
// the probes' stamps: the same verdicts, on a few programs (each run attaches
// every probe, which takes a while; the whole suite passes this way too, in
// about 14 minutes here). norace_atomic_cxx needs the ring merger's order of
// atomics kept across threads, norace_call_once the runtime's pthread_once.
class EbpfRaceSuiteTest : public RaceSuiteTest {};

TEST_P(EbpfRaceSuiteTest, ReportsExactlyTheExpectedRaces) {
  ASSERT_NO_FATAL_FAILURE(Record("ebpf"));
  CheckReport();
}

INSTANTIATE_TEST_SUITE_P(
    Ebpf, EbpfRaceSuiteTest,
    ::testing::ValuesIn(Built({Program{"race_global_rw.c", "gcc"}, Program{"race_heap.c", "gcc"},
                               Program{"race_lock_and_unlocked_reader.c", "gcc"}, Program{"norace_mutex.c", "gcc"},
                               Program{"norace_condvar.c", "gcc"}, Program{"race_cxx_member.cc", "clang"},
                               Program{"norace_atomic_cxx.cc", "clang"}, Program{"norace_call_once.cc", "gcc"}})),
    [](const ::testing::TestParamInfo<Program>& info) {
      std::string name = info.param.source + "_" + info.param.compiler;
      for (char& ch : name)
        if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
      return name;
    });

// Pair locations (pcs or imported location ids), racy events and racy locations of
// each engine.
struct EngineCounts {
  long racy_events = 0, racy_locations = 0;
  std::set<std::pair<uint64_t, uint64_t>> pairs;
  bool operator==(const EngineCounts&) const = default;
};

std::string Describe(const EngineCounts& c) {
  std::string s = "racy_events " + std::to_string(c.racy_events) + ", racy_locations " +
                  std::to_string(c.racy_locations) + ", pairs";
  for (const auto& [a, b] : c.pairs) s += " {" + std::to_string(a) + ", " + std::to_string(b) + "}";
  return s;
}

std::map<std::string, EngineCounts> Counts(const json& report) {
  std::map<std::string, EngineCounts> out;
  for (const auto& [engine, r] : report["races"].items()) {
    EngineCounts& c = out[engine];
    c.racy_events = r["racy_events"].get<long>();
    c.racy_locations = r["racy_locations"].get<long>();
    for (const json& p : r["pairs"]) {
      uint64_t a = p["first"]["location"].get<uint64_t>(), b = p["second"]["location"].get<uint64_t>();
      c.pairs.insert({std::min(a, b), std::max(a, b)});
    }
  }
  return out;
}

TEST_P(RaceSuiteTest, SameResultsAfterStdRoundTrip) {
  ASSERT_NO_FATAL_FAILURE(Record());
  // What went wrong, or "" when every engine gives the same results both ways.
  std::string problem;
  std::string out;
  if (Run(std::string(SEER_BINARY) + " export T.seer --format std -o t.std", &out) != 0) {
    problem = "seer export failed: " + out;
  } else if (Run(std::string(SEER_BINARY) + " import t.std -o t2.seer", &out) != 0) {
    problem = "seer import of the exported trace failed: " + out;
  } else {
    json before, after;
    ASSERT_NO_FATAL_FAILURE(Analyze("T.seer", &before));
    ASSERT_NO_FATAL_FAILURE(Analyze("t2.seer", &after));
    const auto a = Counts(before), b = Counts(after);
    for (const char* engine : kEngines) {
      if (!(a.at(engine) == b.at(engine))) {
        problem += std::string(engine) + " differs after the STD round trip\n  recorded: " + Describe(a.at(engine)) +
                   "\n  via STD:  " + Describe(b.at(engine)) + "\n";
      }
    }
  }
  const std::string& excuse = !expect_.std_known_failure.empty() ? expect_.std_known_failure : expect_.std_lossy;
  if (excuse.empty()) {
    EXPECT_EQ(problem, "");
    return;
  }
  if (problem.empty()) {
    // A lossy program may still agree (the loss may not touch this run); a known
    // failure that works is news.
    EXPECT_TRUE(expect_.std_known_failure.empty())
        << "the STD round trip now works: remove the known-failure marker (" << excuse << ")";
    return;
  }
  std::cout << (expect_.std_known_failure.empty() ? "[ STD LOSSY ] " : "[ KNOWN FAILURE ] ") << Name() << " (" << excuse
            << "):\n"
            << problem;
}

INSTANTIATE_TEST_SUITE_P(Programs, RaceSuiteTest, ::testing::ValuesIn(ListPrograms()),
                         [](const ::testing::TestParamInfo<Program>& info) {
                           std::string name = info.param.source + "_" + info.param.compiler;
                           for (char& c : name)
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

}  // namespace
}  // namespace seer::test
