// Reports of a recorded program (programs/racy.c, built with seer-cc): the JSON
// and text reports name the raced accesses' functions, files and lines, their
// stacks and held locks, the global or heap block raced on with its allocation
// stack; and they say clearly when the binary moved or changed.
#include "predictor/report/report.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>

#include "predictor/analyze.h"
#include "predictor/report/details.h"
#include "recorded_program.h"

namespace seer::predictor {
namespace {

using nlohmann::json;
using testing::MarkedLine;
using testing::Shell;
using testing::Where;

const std::string kSource = std::string(SEER_REPORT_PROGRAMS) + "/racy.c";

std::string Line(const char* marker) { return "racy.c:" + std::to_string(MarkedLine(kSource, marker)); }

class ReportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::MakeTempDir("report");
    ASSERT_FALSE(dir_.empty());
    prog_ = dir_ + "/racy";
    trace_ = dir_ + "/racy.seer";
    ASSERT_EQ(Build(prog_, ""), 0);
    ASSERT_EQ(Shell(std::string(SEER_BIN) + " record -q --sync=inproc -o " + trace_ + " -- " + prog_), 0);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  int Build(const std::string& out, const std::string& flags) {
    return Shell(std::string(SEER_CC) + " -O1 " + flags + " " + kSource + " -o " + out + " -lpthread");
  }

  // Analyses the trace with HB and writes the report with details.
  std::string Report(bool as_json, const SymbolizerOptions& options = {}) {
    const EngineSpec* hb = FindEngine("hb");
    EXPECT_NE(hb, nullptr);
    AnalysisRun run;
    Status s = RunAnalyses(trace_, {hb}, AnalysisOptions(), &run);
    EXPECT_TRUE(s.ok()) << s.ToString();
    ReportDetails details;
    s = CollectReportDetails(trace_, run.reader->info(), run.findings, options, &details);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return as_json ? JsonReport(*run.reader, run.findings, {"hb"}, &details)
                   : TextReport(*run.reader, run.findings, {"hb"}, &details);
  }
  json JsonOf(const SymbolizerOptions& options = {}) { return json::parse(Report(true, options)); }

  std::string dir_, prog_, trace_;
};

// The pair whose first or second event is at `where`, with the other at `other`.
const json* FindPair(const json& report, const std::string& where, const std::string& other) {
  for (const json& p : report["races"]["hb"]["pairs"]) {
    const std::string a = Where(p["first"]), b = Where(p["second"]);
    if ((a == where && b == other) || (a == other && b == where)) return &p;
  }
  return nullptr;
}

const json& EventAt(const json& pair, const std::string& where) {
  return Where(pair["first"]) == where ? pair["first"] : pair["second"];
}

TEST_F(ReportTest, GlobalRaceHasFunctionsLinesStacksAndLocks) {
  const json report = JsonOf();
  EXPECT_TRUE(report["warnings"].empty()) << report["warnings"].dump();
  const json* pair = FindPair(report, Line("MARK-BUMP"), Line("MARK-MAIN"));
  ASSERT_NE(pair, nullptr) << report["races"].dump(1);
  const json& bump = EventAt(*pair, Line("MARK-BUMP"));
  const json& main = EventAt(*pair, Line("MARK-MAIN"));
  EXPECT_EQ(bump["function"], "Bump");
  EXPECT_EQ(main["function"], "main");
  // Bump is called (or inlined) from Worker at MARK-CALL.
  ASSERT_GE(bump["stack"].size(), 2u) << bump.dump(1);
  EXPECT_EQ(Where(bump["stack"][0]), Line("MARK-BUMP"));
  EXPECT_EQ(bump["stack"][1]["function"], "Worker");
  EXPECT_EQ(Where(bump["stack"][1]), Line("MARK-CALL"));
  // Worker holds mu; main holds nothing.
  ASSERT_EQ(bump["locks_held"].size(), 1u) << bump.dump(1);
  EXPECT_EQ(bump["locks_held"][0]["name"], "mu");
  EXPECT_FALSE(bump["locks_held"][0]["shared"].get<bool>());
  EXPECT_TRUE(main["locks_held"].empty());
  // The variable.
  const json& v = (*pair)["variable_details"];
  EXPECT_EQ(v["kind"], "global");
  EXPECT_EQ(v["name"], "counter");
  EXPECT_EQ(v["size"], 4);
  EXPECT_EQ(v["address"], (*pair)["first"]["object"]);
  EXPECT_EQ((*pair)["engines"], json::array({"hb"}));
  // The existing keys stay.
  for (const char* key : {"index", "thread", "thread_name", "kind", "location", "object", "size"})
    EXPECT_TRUE(bump.contains(key)) << key;
  EXPECT_TRUE((*pair)["variable"].is_string());
}

TEST_F(ReportTest, HeapRaceNamesTheBlockAndItsAllocation) {
  const json report = JsonOf();
  const json* pair = FindPair(report, Line("MARK-HEAP-WORKER"), Line("MARK-HEAP-MAIN"));
  ASSERT_NE(pair, nullptr) << report["races"].dump(1);
  const json& v = (*pair)["variable_details"];
  EXPECT_EQ(v["kind"], "heap");
  EXPECT_EQ(v["size"], 16);
  EXPECT_EQ(v["address"].get<uint64_t>() + 4, (*pair)["first"]["object"].get<uint64_t>());
  ASSERT_TRUE(v["alloc_stack"].is_array() && !v["alloc_stack"].empty()) << v.dump(1);
  EXPECT_EQ(Where(v["alloc_stack"][0]), Line("MARK-ALLOC"));
  EXPECT_EQ(v["alloc_stack"][0]["function"], "main");
}

// A free is a write of the block: its size is the block's (20 bytes asked
// for), not what the allocator made usable, in every format.
TEST_F(ReportTest, FreeRaceShowsTheBlocksSize) {
  const json report = JsonOf();
  const json* pair = FindPair(report, Line("MARK-FREE-WORKER"), Line("MARK-FREE-MAIN"));
  ASSERT_NE(pair, nullptr) << report["races"].dump(1);
  const json& freed = EventAt(*pair, Line("MARK-FREE-MAIN"));
  EXPECT_EQ(freed["kind"], "free");
  EXPECT_EQ(freed["size"], 20);
  EXPECT_EQ(EventAt(*pair, Line("MARK-FREE-WORKER"))["size"], 4);
  EXPECT_EQ((*pair)["variable_details"]["size"], 20);
  const std::string text = Report(false);
  EXPECT_NE(text.find("  Free of size 20 at"), std::string::npos) << text;
  EXPECT_NE(text.find("heap block of size 20 at"), std::string::npos) << text;
}

TEST_F(ReportTest, OneLetterCNamesAreNotDemangled) {
  const json report = JsonOf();
  const json* pair = FindPair(report, Line("MARK-G-WORKER"), Line("MARK-G-MAIN"));
  ASSERT_NE(pair, nullptr) << report["races"].dump(1);
  EXPECT_EQ((*pair)["variable_details"]["name"], "g");
}

TEST_F(ReportTest, TextReportShowsBothLinesAndTheVariable) {
  const std::string text = Report(false);
  EXPECT_NE(text.find("WARNING: data race (predicted by hb (first-race-real))"), std::string::npos) << text;
  EXPECT_NE(text.find(Line("MARK-BUMP") + ":"), std::string::npos) << text;
  EXPECT_NE(text.find(Line("MARK-MAIN") + ":"), std::string::npos) << text;
  EXPECT_NE(text.find("Location is global 'counter' of size 4"), std::string::npos) << text;
  EXPECT_NE(text.find("Location is heap block of size 16"), std::string::npos) << text;
  EXPECT_NE(text.find("'mu'"), std::string::npos) << text;
  // The summary lines stay.
  EXPECT_NE(text.find("hb: "), std::string::npos);
  EXPECT_NE(text.find("lost events: 0"), std::string::npos);
}

TEST_F(ReportTest, MovedBinaryIsFoundByBinaryDir) {
  const std::string elsewhere = dir_ + "/elsewhere";
  std::filesystem::create_directory(elsewhere);
  std::filesystem::rename(prog_, elsewhere + "/racy");

  const json lost = JsonOf();
  ASSERT_EQ(lost["warnings"].size(), 1u) << lost["warnings"].dump();
  EXPECT_NE(lost["warnings"][0].get<std::string>().find("racy not found"), std::string::npos);
  EXPECT_EQ(FindPair(lost, Line("MARK-BUMP"), Line("MARK-MAIN")), nullptr);
  const json& any = lost["races"]["hb"]["pairs"][0]["first"];
  EXPECT_TRUE(any["file"].is_null());
  EXPECT_GT(any["stack"][0]["offset"].get<uint64_t>(), 0u);  // module + offset remain

  SymbolizerOptions options;
  options.binary_dirs = {dir_ + "/nothing-here", elsewhere};
  const json found = JsonOf(options);
  EXPECT_TRUE(found["warnings"].empty()) << found["warnings"].dump();
  EXPECT_NE(FindPair(found, Line("MARK-BUMP"), Line("MARK-MAIN")), nullptr);
}

TEST_F(ReportTest, ChangedBinaryIsNotTrusted) {
  ASSERT_EQ(Build(prog_, "-DCHANGED"), 0);
  const json report = JsonOf();
  ASSERT_EQ(report["warnings"].size(), 1u) << report["warnings"].dump();
  EXPECT_EQ(report["warnings"][0],
            prog_ + " changed since recording (build-id differs); its frames are not symbolised");
  EXPECT_EQ(FindPair(report, Line("MARK-BUMP"), Line("MARK-MAIN")), nullptr);
  EXPECT_NE(Report(false).find("seer: warning: " + prog_ + " changed since recording"), std::string::npos);

  // The recorded build, kept elsewhere, is still found by its build-id.
  const std::string kept = dir_ + "/kept";
  std::filesystem::create_directory(kept);
  ASSERT_EQ(Build(kept + "/racy", "-DCHANGED"), 0);  // same name, wrong build: skipped
  SymbolizerOptions options;
  options.binary_dirs = {kept};
  EXPECT_EQ(JsonOf(options)["warnings"].size(), 1u);
}

TEST_F(ReportTest, CliAnalyzeTakesBinaryDir) {
  const std::string elsewhere = dir_ + "/moved";
  std::filesystem::create_directory(elsewhere);
  std::filesystem::rename(prog_, elsewhere + "/racy");
  const std::string out = dir_ + "/r.json";
  ASSERT_EQ(Shell(std::string(SEER_BIN) + " analyze -a hb,wcp --format json --binary-dir " + elsewhere + " -o " + out +
                  " " + trace_),
            0);
  const json report = testing::ReadJson(out);
  ASSERT_TRUE(report.is_object());
  const json* pair = FindPair(report, Line("MARK-BUMP"), Line("MARK-MAIN"));
  ASSERT_NE(pair, nullptr) << report["races"].dump(1);
  EXPECT_EQ((*pair)["engines"], json::array({"hb", "wcp"}));
  // In text, one entry for the pair both engines report.
  const std::string text = dir_ + "/r.txt";
  ASSERT_EQ(
      Shell(std::string(SEER_BIN) + " analyze -a hb,wcp --binary-dir " + elsewhere + " -o " + text + " " + trace_), 0);
  std::ifstream in(text);
  const std::string report_text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(report_text.find("WARNING: data race (predicted by hb (first-race-real), wcp (first-race-real))"),
            std::string::npos)
      << report_text;
  EXPECT_EQ(Shell(std::string(SEER_BIN) + " analyze --binary-dir 2>/dev/null " + trace_), 2);
}

// SARIF of a recorded program: locations relative to --source-root, and
// fingerprints made of source positions only, so that another recording (other
// addresses: ASLR) of the same binary gives the same ones.
TEST_F(ReportTest, SarifFingerprintsSurviveAnotherRecording) {
  const std::string again = dir_ + "/again.seer";
  ASSERT_EQ(Shell(std::string(SEER_BIN) + " record -q --sync=inproc -o " + again + " -- " + prog_), 0);
  auto fingerprints = [&](const std::string& trace, const std::string& out) {
    EXPECT_EQ(Shell(std::string(SEER_BIN) + " analyze -a hb --format sarif --source-root " + SEER_REPORT_PROGRAMS +
                    " -o " + out + " " + trace),
              0);
    const json sarif = testing::ReadJson(out);
    std::set<std::string> prints;
    if (!sarif.is_object()) return prints;
    for (const json& r : sarif["runs"][0]["results"]) {
      prints.insert(r["partialFingerprints"]["seerFinding/v1"].get<std::string>());
      for (const json& l : r["locations"]) {
        EXPECT_EQ(l["physicalLocation"]["artifactLocation"]["uri"], "racy.c") << l.dump();
        EXPECT_EQ(l["physicalLocation"]["artifactLocation"]["uriBaseId"], "SRCROOT") << l.dump();
      }
    }
    return prints;
  };
  const std::set<std::string> first = fingerprints(trace_, dir_ + "/1.sarif");
  const std::set<std::string> second = fingerprints(again, dir_ + "/2.sarif");
  EXPECT_FALSE(first.empty());
  EXPECT_EQ(first, second);
}

}  // namespace
}  // namespace seer::predictor

namespace seer::predictor {
namespace {

// Generated (and imported) traces have no module map: the added keys are there,
// null or empty, and the text keeps its one line per pair.
TEST(ReportWithoutModules, KeysArePresentAndNull) {
  const std::string dir = testing::MakeTempDir("nomodules");
  ASSERT_FALSE(dir.empty());
  const std::string trace = dir + "/g.seer", out = dir + "/r.json";
  ASSERT_EQ(Shell(std::string(SEER_BIN) + " gen --events 300 --threads 2 --locks 1 --vars 2 --locations 4 -o " + trace +
                  " >/dev/null"),
            0);
  ASSERT_EQ(Shell(std::string(SEER_BIN) + " analyze -a hb --format json -o " + out + " " + trace), 0);
  const json report = testing::ReadJson(out);
  ASSERT_TRUE(report.is_object());
  ASSERT_FALSE(report["races"]["hb"]["pairs"].empty());
  const json& pair = report["races"]["hb"]["pairs"][0];
  for (const char* side : {"first", "second"}) {
    EXPECT_TRUE(pair[side]["file"].is_null());
    EXPECT_TRUE(pair[side]["line"].is_null());
    EXPECT_TRUE(pair[side]["function"].is_null());
    EXPECT_EQ(pair[side]["stack"], json::array());
    EXPECT_TRUE(pair[side]["locks_held"].is_null());
  }
  EXPECT_EQ(pair["variable_details"]["kind"], "unknown");
  EXPECT_EQ(pair["engines"], json::array({"hb"}));
  EXPECT_EQ(report["warnings"], json::array());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace seer::predictor

namespace seer::predictor {
namespace {

// Threads of one program often share its name: the report tells them apart.
TEST(ReportNamesTest, ASharedThreadNameCarriesTheThreadId) {
  const std::string dir = testing::MakeTempDir("names");
  ASSERT_FALSE(dir.empty());
  const std::string path = dir + "/t.seer";
  std::unique_ptr<TraceWriter> w;
  ASSERT_TRUE(TraceWriter::Create(path, TraceWriterOptions(), &w).ok());
  const char* names[] = {"main", "worker", "worker", ""};
  for (uint32_t tid = 0; tid < 4; ++tid) {
    ThreadInfo t;
    t.tid = tid;
    t.name = names[tid];
    w->AddThread(t);
    Event e;
    e.tid = tid;
    e.kind = EventKind::kWrite;
    e.object = 0x1000;
    e.aux = 4;
    ASSERT_TRUE(w->Append(e).ok());
  }
  ASSERT_TRUE(w->Close().ok());
  std::unique_ptr<TraceReader> reader;
  ASSERT_TRUE(TraceReader::Open(path, &reader).ok());
  const ReportNames report_names(*reader);
  EXPECT_EQ(report_names.Thread(0), "main");
  EXPECT_EQ(report_names.Thread(1), "worker (T1)");
  EXPECT_EQ(report_names.Thread(2), "worker (T2)");
  EXPECT_EQ(report_names.Thread(3), "T3");  // no name
  EXPECT_EQ(report_names.Thread(9), "T9");  // not in the thread table
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace seer::predictor

namespace seer::predictor {
namespace {

// One recording of a test program and what `seer analyze ANALYZE` reports on it.
struct Recorded {
  json report;                 // --format json
  std::string text;            // the text report
  std::string program_output;  // what the program wrote on stdout
};

// The ways users build and record a program: seer-cc with gcc and with clang
// (linked runtime), and the unmodified binary with the runtime preloaded.
struct ProgramBuild {
  const char* name;
  std::string compile;  // the compiler command line
  const char* sync;     // seer record --sync=
};
std::vector<ProgramBuild> ProgramBuilds() {
  return {{"seer-cc (gcc)", "SEER_COMPILER=gcc " + std::string(SEER_CC), "inproc"},
          {"seer-cc (clang)", "SEER_COMPILER=clang " + std::string(SEER_CC), "inproc"},
          {"unmodified (gcc)", "cc -g", "preload"}};
}

// Compiles `source` with `compile` (a compiler command line), records it with
// --sync=`sync` and analyses the trace; fails the test at the first step that fails.
// `record_exit`: what seer record exits with (the program's status, 128 + the
// signal that killed it).
void RecordAndAnalyze(const std::string& compile, const std::string& source, const std::string& sync,
                      const std::string& analyze, Recorded* out, int record_exit = 0) {
  const std::string dir = testing::MakeTempDir("recorded");
  ASSERT_FALSE(dir.empty());
  const std::string prog = dir + "/prog", trace = dir + "/t.seer";
  ASSERT_EQ(Shell(compile + " -O1 " + source + " -o " + prog + " -lpthread"), 0);
  ASSERT_EQ(Shell(std::string(SEER_BIN) + " record -q --sync=" + sync + " -o " + trace + " -- " + prog + " > " + dir +
                  "/out.txt"),
            record_exit);
  ASSERT_EQ(Shell(std::string(SEER_BIN) + " analyze " + analyze + " --format json -o " + dir + "/r.json " + trace), 0);
  ASSERT_EQ(Shell(std::string(SEER_BIN) + " analyze " + analyze + " -o " + dir + "/r.txt " + trace), 0);
  out->report = testing::ReadJson(dir + "/r.json");
  auto slurp = [](const std::string& path) {
    std::ifstream in(path);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  out->text = slurp(dir + "/r.txt");
  out->program_output = slurp(dir + "/out.txt");
  std::filesystem::remove_all(dir);
}

// An atomicity violation names its variable as a race does: here the heap
// block of the accounts, with the line that allocated it (programs/lost_updates.c).
TEST(AtomicityReportTest, NamesTheHeapBlockAndItsAllocation) {
  const std::string source = std::string(SEER_REPORT_PROGRAMS) + "/lost_updates.c";
  auto line = [&](const char* marker) { return "lost_updates.c:" + std::to_string(MarkedLine(source, marker)); };
  Recorded r;
  {
    SCOPED_TRACE("the program exits non-zero if a reset was lost in the recorded run");
    ASSERT_NO_FATAL_FAILURE(RecordAndAnalyze(SEER_CC, source, "inproc", "-a atomicity", &r));
  }
  const json& report = r.report;
  const std::string& text = r.text;

  ASSERT_TRUE(report.is_object());
  const json* lost = nullptr;
  for (const json& a : report["atomicity"])
    if (Where(a["local_first"]) == line("MARK-READ") && Where(a["remote"]) == line("MARK-RESET") &&
        Where(a["local_second"]) == line("MARK-WRITE"))
      lost = &a;
  ASSERT_NE(lost, nullptr) << report["atomicity"].dump(1);
  EXPECT_EQ((*lost)["pattern"], "read-write-write");
  const json& v = (*lost)["variable_details"];
  EXPECT_EQ(v["kind"], "heap") << v.dump(1);
  EXPECT_EQ(v["size"], 4 * sizeof(long)) << v.dump(1);
  ASSERT_FALSE(v["alloc_stack"].empty()) << v.dump(1);
  EXPECT_EQ(Where(v["alloc_stack"][0]), line("MARK-ALLOC")) << v.dump(1);
  EXPECT_NE(text.find("    Location is heap block of size 32 at "), std::string::npos) << text;
  EXPECT_NE(text.find(line("MARK-ALLOC")), std::string::npos) << text;
}

// A loop that writes a new entry in one critical section and copies it in the
// next iteration's, another thread's update between them in the recorded run
// itself (programs/loop_copy.c, issue #34): the write and the copy are not one
// region (docs/seqcheck.md, "What a region is"), so the default report has no
// atomicity violation, in the gcc and clang builds. Before regions, both builds
// got a validated write-write-read.
TEST(AtomicityReportTest, LoopCopyOfAnEarlierIterationIsNoViolation) {
  const std::string source = std::string(SEER_REPORT_PROGRAMS) + "/loop_copy.c";
  for (const char* compiler : {"gcc", "clang"}) {
    SCOPED_TRACE(compiler);
    Recorded r;
    ASSERT_NO_FATAL_FAILURE(
        RecordAndAnalyze(std::string("SEER_COMPILER=") + compiler + " " + SEER_CC, source, "inproc", "", &r));
    const json& report = r.report;
    const std::string& text = r.text;

    ASSERT_TRUE(report.is_object());
    EXPECT_TRUE(report["atomicity"].empty()) << report["atomicity"].dump(1);
    EXPECT_NE(text.find("\natomicity violations: 0\n"), std::string::npos) << text;
    // The pair was seen and left out as no region, not missed for want of accesses.
    EXPECT_GT(report["stats"]["atomicity"].value("outside_region", 0.0), 0) << report["stats"].dump(1);
  }
}

// Violations at the same three code locations are one entry with their count:
// a loop repeats one bug on many variables.
TEST(AtomicityReportTest, SameCodeLocationsAreShownOnceWithTheirCount) {
  const std::string dir = testing::MakeTempDir("atomicity-groups");
  ASSERT_FALSE(dir.empty());
  const std::string path = dir + "/t.seer";
  std::unique_ptr<TraceWriter> w;
  ASSERT_TRUE(TraceWriter::Create(path, TraceWriterOptions(), &w).ok());
  for (uint32_t tid = 0; tid < 2; ++tid) {
    Event e;
    e.tid = tid;
    e.kind = EventKind::kWrite;
    e.object = 0x1000;
    e.aux = 8;
    ASSERT_TRUE(w->Append(e).ok());
  }
  ASSERT_TRUE(w->Close().ok());
  std::unique_ptr<TraceReader> reader;
  ASSERT_TRUE(TraceReader::Open(path, &reader).ok());

  auto access = [](uint32_t tid, EventKind kind, uint64_t object, uint64_t pc, uint64_t index) {
    EventRef e;
    e.tid = tid;
    e.kind = kind;
    e.object = object;
    e.pc = pc;
    e.index = index;
    e.size = 8;
    return e;
  };
  Findings findings;
  // The same lost update on three variables (one twice), and another elsewhere.
  const uint64_t objects[] = {0x1000, 0x1008, 0x1010, 0x1010};
  for (size_t i = 0; i < 4; ++i) {
    AtomicityViolation a;
    a.engine = "atomicity";
    a.pattern = "read-write-write";
    a.local_first = access(0, EventKind::kRead, objects[i], 0x10, 10 * i);
    a.remote = access(1, EventKind::kWrite, objects[i], 0x20, 10 * i + 5);
    a.local_second = access(0, EventKind::kWrite, objects[i], 0x30, 10 * i + 2);
    a.witness.validated = true;
    findings.atomicity.push_back(a);
  }
  AtomicityViolation other = findings.atomicity.front();
  other.local_second.pc = 0x40;
  findings.atomicity.push_back(other);

  const std::string text = TextReport(*reader, findings, {"atomicity"});
  std::filesystem::remove_all(dir);
  EXPECT_NE(text.find("\natomicity violations: 5 (at 2 code locations)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("    Seen 4 times at these code locations, on 3 variables\n"), std::string::npos) << text;
  size_t entries = 0;
  for (size_t at = text.find("  atomicity read-write-write on "); at != std::string::npos;
       at = text.find("  atomicity read-write-write on ", at + 1))
    ++entries;
  EXPECT_EQ(entries, 2u) << text;
  EXPECT_NE(text.find("findings: proven: 5 atomicity violations\n"), std::string::npos) << text;
  // JSON keeps every one.
  const json j = json::parse(JsonReport(*reader, findings, {"atomicity"}));
  EXPECT_EQ(j["atomicity"].size(), 5u);
}

}  // namespace
}  // namespace seer::predictor

namespace seer::predictor {
namespace {

// One thread takes A then B and later B then A (programs/lock_order_one_thread.c):
// a lock-order inversion with its four lines, not a deadlock, in the seer-cc
// builds of gcc and clang and in the unmodified binary (preloaded runtime).
TEST(LockOrderReportTest, OneThreadInversionIsReportedWithItsLines) {
  const std::string source = std::string(SEER_REPORT_PROGRAMS) + "/lock_order_one_thread.c";
  auto line = [&](const char* marker) {
    return "lock_order_one_thread.c:" + std::to_string(MarkedLine(source, marker));
  };
  for (const ProgramBuild& b : ProgramBuilds()) {
    SCOPED_TRACE(b.name);
    Recorded r;
    ASSERT_NO_FATAL_FAILURE(RecordAndAnalyze(b.compile, source, b.sync, "", &r));
    const json& report = r.report;
    const std::string& text = r.text;

    ASSERT_TRUE(report.is_object());
    EXPECT_TRUE(report["deadlocks"].empty()) << report["deadlocks"].dump(1);
    ASSERT_EQ(report["lock_order_inversions"].size(), 1u) << report.dump(1);
    const json& inv = report["lock_order_inversions"][0];
    EXPECT_EQ(inv["engine"], "lock-order");
    std::set<std::pair<std::string, std::string>> steps;
    for (const json& t : inv["cycle"]) steps.insert({Where(t["held_acquire"]), Where(t["blocked_acquire"])});
    const std::set<std::pair<std::string, std::string>> expected = {{line("MARK-A-HELD"), line("MARK-B-TAKEN")},
                                                                    {line("MARK-B-HELD"), line("MARK-A-TAKEN")}};
    EXPECT_EQ(steps, expected) << inv.dump(1);
    EXPECT_NE(text.find("\nlock-order inversions: 1\n  lock-order inversion on locks "), std::string::npos) << text;
    EXPECT_NE(text.find("findings: 1 lock-order inversion"), std::string::npos) << text;
    EXPECT_NE(text.find("\ndeadlocks: 0\n"), std::string::npos) << text;
  }
}

}  // namespace
}  // namespace seer::predictor

namespace seer::predictor {
namespace {

// A close racing with a read on the same descriptor is a race on the
// descriptor, and the report says so: file descriptor N, created at pipe().
TEST(FdReportTest, RaceOnADescriptorNamesTheDescriptor) {
  const std::string source = std::string(SEER_REPORT_PROGRAMS) + "/fd_close_read.c";
  auto line = [&](const char* marker) { return "fd_close_read.c:" + std::to_string(MarkedLine(source, marker)); };
  Recorded r;
  ASSERT_NO_FATAL_FAILURE(RecordAndAnalyze(SEER_CC, source, "inproc", "-a hb", &r));
  const json& report = r.report;
  const std::string& text = r.text;
  std::string fd;
  std::istringstream(r.program_output) >> fd;  // the program prints the descriptor's number

  ASSERT_FALSE(fd.empty());
  const json* pair = nullptr;
  for (const json& p : report["races"]["hb"]["pairs"]) {
    const std::set<std::string> lines = {Where(p["first"]), Where(p["second"])};
    if (lines == std::set<std::string>{line("MARK-READ"), line("MARK-CLOSE")}) pair = &p;
  }
  ASSERT_NE(pair, nullptr) << report["races"].dump(1);
  const json& v = (*pair)["variable_details"];
  EXPECT_EQ(v["kind"], "fd") << v.dump(1);
  EXPECT_EQ(v["name"], fd) << v.dump(1);
  ASSERT_FALSE(v["alloc_stack"].empty()) << v.dump(1);
  EXPECT_EQ(Where(v["alloc_stack"][0]), line("MARK-PIPE")) << v.dump(1);
  EXPECT_NE(text.find("  Location is file descriptor " + fd + " (the descriptor itself"), std::string::npos) << text;
}

// dup2's creation of its target reads it (ThreadSanitizer's model): a close
// racing with the dup2 that made the descriptor is a race with that creation,
// which the report calls a creation, at the dup2() line.
TEST(FdReportTest, CloseRacingWithTheDup2ThatMadeTheDescriptor) {
  const std::string source = std::string(SEER_REPORT_PROGRAMS) + "/fd_close_after_dup2.c";
  auto line = [&](const char* marker) { return "fd_close_after_dup2.c:" + std::to_string(MarkedLine(source, marker)); };
  Recorded r;
  ASSERT_NO_FATAL_FAILURE(RecordAndAnalyze(SEER_CC, source, "inproc", "-a hb", &r));
  std::string fd;
  std::istringstream(r.program_output) >> fd;
  ASSERT_FALSE(fd.empty());
  const json* pair = nullptr;
  for (const json& p : r.report["races"]["hb"]["pairs"])
    if (Where(p["first"]) == line("MARK-DUP2") && Where(p["second"]) == line("MARK-CLOSE")) pair = &p;
  ASSERT_NE(pair, nullptr) << r.report["races"].dump(1);
  const json& v = (*pair)["variable_details"];
  EXPECT_EQ(v["kind"], "fd") << v.dump(1);
  EXPECT_EQ(v["name"], fd) << v.dump(1);
  ASSERT_FALSE(v["alloc_stack"].empty()) << v.dump(1);
  EXPECT_EQ(Where(v["alloc_stack"][0]), line("MARK-DUP2")) << v.dump(1);
  EXPECT_NE(r.text.find("  Previous creation of size 1 at "), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("  Location is file descriptor " + fd +
                        " (the descriptor itself: its I/O calls and dup2 read it, "
                        "its creation and close write it), created by thread "),
            std::string::npos)
      << r.text;
}

}  // namespace
}  // namespace seer::predictor

namespace seer::predictor {
namespace {

// A deadlock that happened (programs/deadlock_happened.c): the program is killed
// with both threads blocked. The requests the runtime records before a
// blocking lock waits make it a deadlock of the `blocked` engine, with the
// recorded run as its witness; the deadlock engine, which predicts from
// acquisitions, has none to go on. seer-cc builds of gcc and clang, and the
// unmodified binary (preloaded runtime).
TEST(BlockedReportTest, ADeadlockThatHappenedIsReportedWithItsLines) {
  const std::string source = std::string(SEER_REPORT_PROGRAMS) + "/deadlock_happened.c";
  auto line = [&](const char* marker) { return "deadlock_happened.c:" + std::to_string(MarkedLine(source, marker)); };
  for (const ProgramBuild& b : ProgramBuilds()) {
    SCOPED_TRACE(b.name);
    Recorded r;
    constexpr int kKilledByAlarm = 128 + 14;  // SIGALRM
    ASSERT_NO_FATAL_FAILURE(RecordAndAnalyze(b.compile, source, b.sync, "", &r, kKilledByAlarm));
    const json& report = r.report;
    ASSERT_TRUE(report.is_object());
    ASSERT_EQ(report["deadlocks"].size(), 1u) << report["deadlocks"].dump(1);
    const json& d = report["deadlocks"][0];
    EXPECT_EQ(d["engine"], "blocked");
    EXPECT_EQ(d["guarantee"], "happened");
    std::set<std::pair<std::string, std::string>> steps;
    for (const json& t : d["cycle"]) steps.insert({Where(t["held_acquire"]), Where(t["blocked_acquire"])});
    const std::set<std::pair<std::string, std::string>> expected = {{line("MARK-A-HELD"), line("MARK-B-WANTED")},
                                                                    {line("MARK-B-HELD"), line("MARK-A-WANTED")}};
    EXPECT_EQ(steps, expected) << d.dump(1);
    EXPECT_NE(r.text.find("\ndeadlocks: 1\n  blocked (happened) on locks "), std::string::npos) << r.text;
    EXPECT_NE(r.text.find("witness: the recorded run itself"), std::string::npos) << r.text;
  }
}

}  // namespace
}  // namespace seer::predictor
