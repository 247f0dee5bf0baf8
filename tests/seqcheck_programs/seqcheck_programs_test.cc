// SeqCheck on recorded programs: every program under programs/ is recorded with
// the eBPF recorder (plain build) and/or the in-process runtime (seer-cc build),
// analysed with `seer analyze --analysis deadlock,atomicity --format json`, and
// its deadlock cycles and atomicity violations compared, by source line, with the
// markers in its source (expectations.h, README.md). Needs root; skipped loudly
// without it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "expectations.h"
#include "tests/support/program_suite.h"

namespace seer::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A program source and how it is recorded ("ebpf" or "inproc").
struct Recording {
  std::string source;  // file name under programs/
  std::string mode;
};

void PrintTo(const Recording& r, std::ostream* os) { *os << r.source << " (" << r.mode << ")"; }

// Every source in each mode it declares: the test parameters. A source whose
// markers do not parse still gets one parameter, so that the test reports why.
std::vector<Recording> ListRecordings() {
  std::vector<Recording> recordings;
  for (const std::string& name : ListSources(SEER_SEQ_PROGRAMS_SRC)) {
    ProgramExpectations expect;
    std::string error;
    if (!ParseProgramExpectations(std::string(SEER_SEQ_PROGRAMS_SRC) + "/" + name, &expect, &error)) {
      recordings.push_back({name, "unparsed"});
      continue;
    }
    // Every in-process recording also runs on the clang build (seer-clang).
    for (const std::string& mode : expect.record_modes) {
      recordings.push_back({name, mode});
      if (mode == "inproc") recordings.push_back({name, "inproc-clang"});
    }
  }
  return recordings;
}

std::string Lines(const std::set<int>& lines) {
  std::string s;
  for (int l : lines) s += (s.empty() ? "" : ",") + std::to_string(l);
  return "{" + s + "}";
}

class SeqCheckProgramTest : public ::testing::TestWithParam<Recording> {
 protected:
  void SetUp() override {
    if (geteuid() != 0) {
      GTEST_SKIP() << "\n*** SKIPPED: recording needs root (uprobes; as in CI); this process is uid " << geteuid()
                   << ". Run it as root to check SeqCheck on recorded programs. ***";
    }
    const std::string stem = fs::path(GetParam().source).stem().string();
    std::string error;
    ASSERT_TRUE(
        ParseProgramExpectations(std::string(SEER_SEQ_PROGRAMS_SRC) + "/" + GetParam().source, &expect_, &error))
        << error;
    const std::string& mode = GetParam().mode;
    program_ = std::string(SEER_SEQ_PROGRAMS_OUT) + "/" + stem +
               (mode == "inproc"         ? ".inproc"
                : mode == "inproc-clang" ? ".inproc.clang"
                                         : "");
    sync_ = mode == "ebpf" ? "ebpf" : "inproc";
    scratch_ = std::make_unique<ScratchDir>("seer-seqprog-" + stem + "-" + GetParam().mode);
  }

  void RecordAndAnalyze(json* report) {
    std::string out;
    int code =
        scratch_->Run(std::string(SEER_BINARY) + " record -q --sync=" + sync_ + " -o T.seer -- " + program_, &out);
    ASSERT_EQ(code, 0) << "seer record --sync=" << sync_ << " of " << program_ << " exited " << code
                       << " (the program dies of SIGALRM if the run really deadlocked):\n"
                       << out;
    code = scratch_->Run(
        std::string(SEER_BINARY) + " analyze T.seer --format json --analysis deadlock,atomicity -o T.json", &out);
    ASSERT_EQ(code, 0) << "seer analyze exited " << code << ":\n" << out;
    *report = json::parse(ReadWholeFile(scratch_->Path("T.json")), nullptr, false);
    ASSERT_FALSE(report->is_discarded()) << "seer analyze wrote invalid JSON";
    ASSERT_TRUE(report->contains("deadlocks") && report->contains("atomicity")) << report->dump(2);
    ASSERT_EQ((*report)["trace"]["lost_events"].get<long>(), 0) << "the recording lost events";
    ASSERT_TRUE((*report)["trace"]["complete"].get<bool>());
  }

  // The line of the program's own source a reported event comes from: its
  // innermost frame in this file (a lock taken through std::mutex is inlined
  // library code at the top of the stack), or 0 when the report has none.
  int SourceLine(const json& event) const {
    if (event.contains("stack") && event["stack"].is_array()) {
      for (const json& frame : event["stack"]) {
        if (frame["file"].is_string() && frame["line"].is_number() &&
            Basename(frame["file"].get<std::string>()) == expect_.file)
          return frame["line"].get<int>();
      }
    }
    return 0;
  }

  std::string Name() const { return GetParam().source + " (" + GetParam().mode + ")"; }

  // A declared finding that is not reported: a failure, or a loud known failure
  // (or good news about a known false positive: a failure until the markers say so).
  void Missing(const std::string& label, const std::string& what) {
    auto fp = expect_.known_false_positives.find(label);
    if (fp != expect_.known_false_positives.end()) {
      ADD_FAILURE() << what << ": this known false positive is gone; make the program `seer-expect: none` ("
                    << fp->second << ")";
      return;
    }
    auto known = expect_.known_failures.find(label);
    if (known == expect_.known_failures.end()) {
      ADD_FAILURE() << what;
      return;
    }
    std::cout << "[ KNOWN FAILURE ] " << Name() << ": " << what << "\n  (" << known->second << ")\n";
  }

  // A declared finding that is reported: loud when it is a known false positive, a
  // failure when it was a known failure (remove the marker).
  void Found(const std::string& label) {
    auto fp = expect_.known_false_positives.find(label);
    if (fp != expect_.known_false_positives.end())
      std::cout << "[ KNOWN FALSE POSITIVE ] " << Name() << ": `" << label << "` is reported (" << fp->second << ")\n";
    auto known = expect_.known_failures.find(label);
    EXPECT_TRUE(known == expect_.known_failures.end())
        << "`" << label << "` is now reported: remove its seer-known-failure marker (" << known->second << ")";
  }

  ProgramExpectations expect_;
  std::string program_;
  std::string sync_;  // seer record --sync=
  std::unique_ptr<ScratchDir> scratch_;
};

// A reported deadlock, reduced to what the markers say.
struct SeenDeadlock {
  size_t threads = 0, locks = 0;
  std::set<int> held_lines, blocked_lines;
  std::string text;  // for messages
};

void CheckWitness(const json& finding) {
  const json& w = finding["witness"];
  EXPECT_TRUE(w["validated"].get<bool>()) << "a finding without a validated witness: " << finding.dump();
  EXPECT_GT(w["length"].get<long>(), 0) << "a finding with an empty witness schedule: " << finding.dump();
}

TEST_P(SeqCheckProgramTest, ReportsExactlyTheExpectedFindings) {
  if (GetParam().mode == "ebpf") {
    ASSERT_TRUE(expect_.atomicity.empty()) << "atomicity violations need memory accesses: record with inproc only";
  }
  json report;
  ASSERT_NO_FATAL_FAILURE(RecordAndAnalyze(&report));

  // Deadlocks: every report matches a declared cycle, every cycle is reported.
  std::set<std::string> matched;
  for (const json& d : report["deadlocks"]) {
    CheckWitness(d);
    SeenDeadlock seen;
    std::set<uint32_t> tids;
    std::set<std::string> held, wanted;
    for (const json& t : d["cycle"]) {
      tids.insert(t["thread"].get<uint32_t>());
      held.insert(t["held_lock"].dump());
      wanted.insert(t["wanted_lock"].dump());
      const int h = SourceLine(t["held_acquire"]), b = SourceLine(t["blocked_acquire"]);
      EXPECT_TRUE(h != 0 && b != 0) << "a deadlock acquisition without a line in " << expect_.file << ": " << t.dump();
      seen.held_lines.insert(h);
      seen.blocked_lines.insert(b);
      seen.text += " [thread " + std::to_string(t["thread"].get<uint32_t>()) + " holds " + t["held_lock"].dump() +
                   " from line " + std::to_string(h) + ", blocked at line " + std::to_string(b) + "]";
    }
    seen.threads = d["cycle"].size();
    seen.locks = held.size();
    EXPECT_EQ(tids.size(), seen.threads) << "a thread twice in one cycle:" << seen.text;
    EXPECT_EQ(held, wanted) << "the held and wanted locks do not form a cycle:" << seen.text;

    const ExpectedDeadlock* match = nullptr;
    for (const ExpectedDeadlock& e : expect_.deadlocks) {
      if (e.threads == static_cast<int>(seen.threads) && e.threads == static_cast<int>(seen.locks) &&
          e.held_lines == seen.held_lines && e.blocked_lines == seen.blocked_lines)
        match = &e;
    }
    if (match == nullptr) {
      ADD_FAILURE() << "an unexpected deadlock of " << seen.threads << " threads and " << seen.locks
                    << " locks:" << seen.text;
      continue;
    }
    matched.insert(match->label);
    Found(match->label);
  }
  for (const ExpectedDeadlock& e : expect_.deadlocks) {
    if (matched.count(e.label)) continue;
    std::string reported;
    for (const json& d : report["deadlocks"]) reported += " " + std::to_string(d["cycle"].size()) + "-thread cycle";
    Missing(e.label, "the deadlock `" + e.label + "` (" + std::to_string(e.threads) + " threads, held at lines " +
                         Lines(e.held_lines) + ", blocked at lines " + Lines(e.blocked_lines) +
                         ") is not reported; reported:" + (reported.empty() ? " nothing" : reported));
  }

  // Atomicity violations, likewise.
  matched.clear();
  for (const json& a : report["atomicity"]) {
    CheckWitness(a);
    const std::string pattern = a["pattern"].get<std::string>();
    const int first = SourceLine(a["local_first"]), remote = SourceLine(a["remote"]),
              second = SourceLine(a["local_second"]);
    const ExpectedAtomicity* match = nullptr;
    for (const ExpectedAtomicity& e : expect_.atomicity) {
      if (e.pattern == pattern && e.first_line == first && e.remote_line == remote && e.second_line == second)
        match = &e;
    }
    if (match == nullptr) {
      ADD_FAILURE() << "an unexpected " << pattern << " atomicity violation at lines " << first << ", " << remote
                    << ", " << second << " (first, remote, second) on " << a["variable"].dump();
      continue;
    }
    matched.insert(match->label);
    Found(match->label);
  }
  for (const ExpectedAtomicity& e : expect_.atomicity) {
    if (matched.count(e.label)) continue;
    Missing(e.label, "the " + e.pattern + " atomicity violation `" + e.label + "` at lines " +
                         std::to_string(e.first_line) + ", " + std::to_string(e.remote_line) + ", " +
                         std::to_string(e.second_line) + " is not reported (" +
                         std::to_string(report["atomicity"].size()) + " other(s) are)");
  }
}

INSTANTIATE_TEST_SUITE_P(Programs, SeqCheckProgramTest, ::testing::ValuesIn(ListRecordings()),
                         [](const ::testing::TestParamInfo<Recording>& info) {
                           std::string name = info.param.source + "_" + info.param.mode;
                           for (char& c : name)
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

}  // namespace
}  // namespace seer::test
