// The built `seer` binary: exit codes, what goes to stdout and stderr, and the
// files it writes. Bad input must give exit code 2 and one line naming the file.
#include <gtest/gtest.h>
#include <lmdb.h>

#include <random>
#include <set>

#include <nlohmann/json.hpp>

#include "predictor/engine.h"
#include "store/chunk_codec.h"
#include "store/coding.h"
#include "store/tables.h"
#include "tests/support/cli_test_util.h"

namespace seer {
namespace {

using nlohmann::json;
using test::ReadFile;
using test::WriteFile;

class CliTest : public test::TempDirTest {
 protected:
  // Expects exit code 2 and exactly one stderr line `seer: ...` containing `what`.
  void ExpectInputError(const test::RunResult& r, const std::string& what) {
    EXPECT_EQ(r.code, 2) << r.err;
    auto lines = r.ErrLines();
    ASSERT_EQ(lines.size(), 1u) << r.err;
    EXPECT_EQ(lines[0].rfind("seer: ", 0), 0u) << lines[0];
    EXPECT_NE(lines[0].find(what), std::string::npos) << lines[0];
  }
  std::string ImportData(const std::string& name) {
    auto r = Seer("import " + test::DataFile(name) + " -o " + Path("t.seer"));
    EXPECT_EQ(r.code, 0) << r.err;
    return Path("t.seer");
  }
};

TEST_F(CliTest, ImportExportRoundTrip) {
  for (const char* name : {"basic.std", "names.std", "lock_handoff.std"}) {
    SCOPED_TRACE(name);
    auto r = Seer("import " + test::DataFile(name) + " -o " + Path("t.seer"));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("imported"), std::string::npos);
    EXPECT_EQ(r.err, "");
    r = Seer("export " + Path("t.seer") + " --format std");
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, ReadFile(test::DataFile(name)));
    EXPECT_EQ(r.err, "");
    r = Seer("export " + Path("t.seer") + " -o " + Path("out.std"));
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(ReadFile(Path("out.std")), ReadFile(test::DataFile(name)));
  }
}

// A trace written by an earlier seer (format version 1, before the tables'
// checksum; lock_handoff.v1.seer, imported from lock_handoff.std) is still read,
// and analysed as the same import in today's format is.
TEST_F(CliTest, ReadsFormatVersionOneTraces) {
  const std::string v1 = Path("v1.seer");
  WriteFile(v1, ReadFile(test::DataFile("lock_handoff.v1.seer")));
  auto info = Seer("info --json " + v1);
  ASSERT_EQ(info.code, 0) << info.err;
  EXPECT_EQ(json::parse(info.out)["format_version"], 1);
  auto old_report = Seer("analyze --format json " + v1);
  ASSERT_EQ(old_report.code, 0) << old_report.err;
  auto new_report = Seer("analyze --format json " + ImportData("lock_handoff.std"));
  ASSERT_EQ(new_report.code, 0) << new_report.err;
  json a = json::parse(old_report.out), b = json::parse(new_report.out);
  for (json* j : {&a, &b}) {
    j->erase("trace");
    j->erase("stats");  // timings
  }
  EXPECT_EQ(a, b);
}

TEST_F(CliTest, ExportWarnsAboutSeerOnlyOps) {
  ImportData("seer_ops.std");
  auto r = Seer("export " + Path("t.seer"));
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, ReadFile(test::DataFile("seer_ops.std")));
  EXPECT_NE(r.err.find("seer: warning: 20 events have no RAPID equivalent"), std::string::npos) << r.err;
}

TEST_F(CliTest, ImportErrorsExitTwoNamingFileAndLine) {
  WriteFile(Path("bad.std"), "T0|acq(l)|1\n\nT0|w(x)|2\nT0|frob(x)|3\n");
  auto r = Seer("import " + Path("bad.std") + " -o " + Path("t.seer"));
  ExpectInputError(r, Path("bad.std") + ":4: unknown operation `frob`");
  EXPECT_FALSE(test::fs::exists(Path("t.seer"))) << "a failed import must not leave a trace behind";

  WriteFile(Path("lock.std"), "T0|acq(l)|1\nT1|acq(l)|2\n");
  r = Seer("import " + Path("lock.std") + " -o " + Path("t.seer"));
  ExpectInputError(r, "lock.std:2: thread `T1` acquires lock `l` held by thread `T0`");

  WriteFile(Path("loc.std"), "T0|r(x)|x1\n");
  ExpectInputError(Seer("import " + Path("loc.std") + " -o " + Path("t.seer")), "loc.std:1: location `x1`");

  ExpectInputError(Seer("import " + Path("missing.std") + " -o " + Path("t.seer")), "missing.std: no such file");
  ExpectInputError(Seer("import " + dir_.string() + " -o " + Path("t.seer")), "is a directory");
  ExpectInputError(Seer("import " + test::DataFile("basic.std") + " -o " + Path("no/dir/t.seer")), "no/dir/t.seer");
}

TEST_F(CliTest, InfoJsonCountsAreExact) {
  ImportData("basic.std");
  auto r = Seer("info --json " + Path("t.seer"));
  ASSERT_EQ(r.code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["events"], 12);
  EXPECT_EQ(j["threads"], 2);
  EXPECT_EQ(j["lost_events"], 0);
  EXPECT_EQ(j["locks"], 1);
  EXPECT_EQ(j["variables"], 2);
  EXPECT_EQ(j["locations"], 4);  // pcs of the four accesses
  EXPECT_EQ(j["complete"], true);
  EXPECT_EQ(j["source"], "std-import");
  EXPECT_EQ(j["format_version"], kTraceFormatVersion);
  EXPECT_EQ(j["chunks"], 1);
  EXPECT_GT(j["file_size"].get<uint64_t>(), 0u);
  const json& k = j["by_kind"];
  EXPECT_EQ(k.size(), static_cast<size_t>(kNumEventKinds));
  EXPECT_EQ(k["read"], 2);
  EXPECT_EQ(k["write"], 2);
  EXPECT_EQ(k["acquire"], 2);
  EXPECT_EQ(k["release"], 2);
  EXPECT_EQ(k["fork"], 1);
  EXPECT_EQ(k["join"], 1);
  EXPECT_EQ(k["atomic_begin"], 1);
  EXPECT_EQ(k["atomic_end"], 1);
  EXPECT_EQ(k["barrier_arrive"], 0);
  ASSERT_EQ(j["thread_list"].size(), 2u);
  EXPECT_EQ(j["thread_list"][0]["name"], "T0");
  EXPECT_EQ(j["thread_list"][0]["events"], 8);
  EXPECT_EQ(j["thread_list"][1]["events"], 4);
  EXPECT_EQ(j["thread_list"][1]["parent"], 0);
  // Per thread, the kinds it has: T1 holds acq, r, rel, w; T0 the rest.
  EXPECT_EQ(j["thread_list"][1]["by_kind"], json::parse(R"({"acquire":1,"read":1,"release":1,"write":1})"));
  EXPECT_EQ(j["thread_list"][0]["by_kind"]["fork"], 1);
  EXPECT_EQ(j["thread_list"][0]["by_kind"]["acquire"], 1);
  EXPECT_EQ(j["thread_list"][0]["by_kind"].size(), 8u);
}

// A trace whose writer left the distinct counts to the reader (the recorder
// does): `seer info` counts them as it decodes, the same as a counted trace's.
TEST_F(CliTest, InfoCountsWhatTheWriterLeftUncounted) {
  for (const bool counted : {true, false}) {
    TraceWriterOptions options;
    options.count_distinct = counted;
    options.events_per_chunk = 100;  // several chunks
    const std::string path = Path(counted ? "counted.seer" : "uncounted.seer");
    std::unique_ptr<TraceWriter> w;
    ASSERT_TRUE(TraceWriter::Create(path, options, &w).ok());
    std::set<uint64_t> locks, variables, locations;
    for (uint64_t i = 0; i < 1000; ++i) {
      Event e;
      e.tid = static_cast<uint32_t>(i % 2);
      e.kind = i % 5 == 0 ? EventKind::kAcquire : i % 5 == 1 ? EventKind::kRelease : EventKind::kRead;
      e.pc = 0x400000 + i % 13;
      if (e.kind == EventKind::kRead) {
        e.object = 0x1000 + (i * 37) % 300;
        variables.insert(e.object);
        locations.insert(e.pc);
      } else {
        e.object = 0x9000 + (i % 7) * 64;
        locks.insert(e.object);
      }
      ASSERT_TRUE(w->Append(e).ok());
    }
    ASSERT_TRUE(w->Close().ok());
    auto r = Seer("info --json " + path);
    ASSERT_EQ(r.code, 0) << r.err;
    json j = json::parse(r.out);
    SCOPED_TRACE(counted ? "counted by the writer" : "counted by seer info");
    EXPECT_EQ(j["locks"], locks.size());
    EXPECT_EQ(j["variables"], variables.size());
    EXPECT_EQ(j["locations"], locations.size());
    EXPECT_GT(variables.size(), 100u);
  }
}

TEST_F(CliTest, InfoText) {
  ImportData("names.std");
  auto r = Seer("info " + Path("t.seer"));
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* line : {"events:       18\n", "  acquire         4\n", "threads:      3\n", "main-thread",
                           "worker.1", "locks:        2\n", "variables:    3\n", "lost events:  0\n",
                           "complete:     yes\n", "source:       std-import\n", "format:       version 2\n"})
    EXPECT_NE(r.out.find(line), std::string::npos) << "missing `" << line << "` in\n" << r.out;
}

TEST_F(CliTest, InfoOfLostEventsAndUnfinishedTrace) {
  const std::string path = Path("crashed.seer");
  {
    std::unique_ptr<TraceWriter> w;
    ASSERT_TRUE(TraceWriter::Create(path, {}, &w).ok());
    w->AddLost("bpf-ringbuf", EventKind::kAcquire, 5);
    w->AddLost("runtime-ring", EventKind::kWrite, 2);
    Event e;
    e.kind = EventKind::kWrite;
    e.aux = 4;
    ASSERT_TRUE(w->Append(e).ok());
    ASSERT_TRUE(w->Flush().ok());
    // No Close(): as if the recorder died.
  }
  auto r = Seer("info --json " + path);
  ASSERT_EQ(r.code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["complete"], false);
  EXPECT_EQ(j["lost_events"], 7);
  EXPECT_EQ(j["lost"]["bpf-ringbuf"]["acquire"], 5);
  EXPECT_EQ(j["lost"]["runtime-ring"]["write"], 2);
  EXPECT_EQ(j["events"], 1);
  r = Seer("info " + path);
  EXPECT_NE(r.out.find("trace was not closed cleanly: the recorder or target died; events up to the last commit "
                       "are intact"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("lost events:  7 (bpf-ringbuf: 5 acquire; runtime-ring: 2 write)"), std::string::npos) << r.out;
  r = Seer("export " + path);
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, "T0|w(V0 size=4)|0\n");  // the size is kept (docs/trace-format.md, Attributes)
  EXPECT_NE(r.err.find("seer: warning: the trace lost 7 events"), std::string::npos) << r.err;
}

// A record of a trace as LMDB stores it ("" when absent).
std::string StoredValue(const std::string& path, const char* table, const std::string& key) {
  MDB_env* env = nullptr;
  std::string out;
  if (mdb_env_create(&env) != 0) return out;
  mdb_env_set_maxdbs(env, 8);
  MDB_txn* txn = nullptr;
  MDB_dbi dbi;
  if (mdb_env_open(env, path.c_str(), MDB_NOSUBDIR | MDB_NOLOCK | MDB_RDONLY, 0600) == 0 &&
      mdb_txn_begin(env, nullptr, MDB_RDONLY, &txn) == 0) {
    MDB_val k{key.size(), const_cast<char*>(key.data())}, v;
    if (mdb_dbi_open(txn, table, 0, &dbi) == 0 && mdb_get(txn, dbi, &k, &v) == 0)
      out.assign(static_cast<const char*>(v.mv_data), v.mv_size);
    mdb_txn_abort(txn);
  }
  mdb_env_close(env);
  return out;
}

TEST_F(CliTest, InfoDetectsCountersThatDisagreeWithTheChunks) {
  const std::string path = Path("c.seer");
  {
    std::unique_ptr<TraceWriter> w;
    ASSERT_TRUE(TraceWriter::Create(path, {}, &w).ok());
    for (int i = 0; i < 8; ++i) {
      Event e;
      e.kind = i < 5 ? EventKind::kRead : EventKind::kWrite;
      e.aux = 1;
      ASSERT_TRUE(w->Append(e).ok());
    }
    ASSERT_TRUE(w->Close().ok());
  }
  // Same total, other split: LMDB stores the counters record verbatim (and
  // may keep older copies of it in free pages; change them all). The tables'
  // checksum would catch that at open; update it too, as a writer with wrong
  // counters would have, so that what is tested is `seer info`'s own check.
  const std::string old_counters = StoredValue(path, "counters", "all");
  const std::string old_sum_text = StoredValue(path, "meta", meta::kTablesChecksum);
  uint64_t sum = 0;
  ASSERT_TRUE(store::ParseTablesChecksum(old_sum_text, &sum)) << old_sum_text;
  std::string new_counters = old_counters;
  for (auto [from, to] : {std::pair{"\"read\":5", "\"read\":6"}, {"\"write\":3", "\"write\":2"}}) {
    ASSERT_NE(new_counters.find(from), std::string::npos) << new_counters;
    new_counters.replace(new_counters.find(from), std::strlen(from), to);
  }
  sum +=
      store::TableRecordHash("counters", "all", new_counters) - store::TableRecordHash("counters", "all", old_counters);
  const std::string new_sum_text = store::FormatTablesChecksum(sum);
  std::string bytes = ReadFile(path);
  for (size_t at = bytes.find(old_sum_text); at != std::string::npos; at = bytes.find(old_sum_text, at + 1))
    bytes.replace(at, old_sum_text.size(), new_sum_text);
  size_t changed = 0;
  for (auto [from, to] : {std::pair{"\"read\":5", "\"read\":6"}, {"\"write\":3", "\"write\":2"}}) {
    for (size_t at = bytes.find(from); at != std::string::npos; at = bytes.find(from, at + 1)) {
      bytes.replace(at, std::strlen(from), to);
      ++changed;
    }
  }
  ASSERT_GE(changed, 2u);
  WriteFile(path, bytes);
  ExpectInputError(Seer("info " + path), "c.seer: the chunks hold 5 read events, the counters say 6");
}

TEST_F(CliTest, GenIsDeterministicAndMatchesExport) {
  const std::string opts = "--events 50000 --threads 6 --locks 5 --vars 40 --locations 100 --seed 9";
  auto a = Seer("gen " + opts + " --format std -o " + Path("a.std"));
  ASSERT_EQ(a.code, 0) << a.err;
  auto b = Seer("gen " + opts + " --format std");
  ASSERT_EQ(b.code, 0) << b.err;
  EXPECT_EQ(ReadFile(Path("a.std")), b.out);
  auto c = Seer("gen " + opts + " -o " + Path("g.seer"));
  ASSERT_EQ(c.code, 0) << c.err;
  auto e = Seer("export " + Path("g.seer"));
  EXPECT_EQ(e.out, b.out) << "gen --format std and gen + export differ";
  // The text is valid STD with lock semantics (import checks them), and comes
  // back unchanged.
  auto i = Seer("import " + Path("a.std") + " -o " + Path("i.seer"));
  ASSERT_EQ(i.code, 0) << i.err;
  EXPECT_EQ(Seer("export " + Path("i.seer")).out, b.out);
  auto d = Seer("gen " + opts + " --seed 10 --format std");
  EXPECT_NE(d.out, b.out);

  auto info = Seer("info --json " + Path("g.seer"));
  json j = json::parse(info.out);
  EXPECT_EQ(j["events"], 50000);
  EXPECT_EQ(j["threads"], 6);
  EXPECT_EQ(j["by_kind"]["fork"], 5);
  EXPECT_EQ(j["by_kind"]["join"], 5);
  EXPECT_EQ(j["by_kind"]["acquire"], j["by_kind"]["release"]);
  EXPECT_EQ(j["by_kind"]["read"].get<uint64_t>() + j["by_kind"]["write"].get<uint64_t>() +
                2 * j["by_kind"]["acquire"].get<uint64_t>() + 10,
            50000u);
  EXPECT_LE(j["locks"].get<uint64_t>(), 5u);
  EXPECT_LE(j["variables"].get<uint64_t>(), 40u);
  EXPECT_LE(j["locations"].get<uint64_t>(), 100u);
  EXPECT_EQ(j["source"], "gen");
}

TEST_F(CliTest, GenUsageErrors) {
  ExpectInputError(Seer("gen --threads 0 -o " + Path("g.seer")), "--threads must be at least 1");
  ExpectInputError(Seer("gen --events 10"), "needs a path");
  EXPECT_EQ(Seer("gen --format xml -o " + Path("g.seer")).code, 2);
  EXPECT_EQ(Seer("gen --no-such-option").code, 2);
}

TEST_F(CliTest, AnalyzeReportsAndUnknownAnalysis) {
  ImportData("basic.std");
  auto r = Seer("analyze " + Path("t.seer") + " --analysis no-such-analysis");
  ExpectInputError(r, "unknown analysis 'no-such-analysis' (known: ");
  for (const predictor::EngineSpec& spec : predictor::Engines()) EXPECT_NE(r.err.find(spec.name), std::string::npos);

  r = Seer("analyze " + Path("t.seer") + " --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["trace"]["events"], 12);
  EXPECT_EQ(j["trace"]["lost_events"], 0);
  EXPECT_TRUE(j["races"].is_object());
  EXPECT_TRUE(j["deadlocks"].is_array());
  EXPECT_TRUE(j["atomicity"].is_array());

  r = Seer("analyze " + Path("t.seer") + " -o " + Path("report.txt"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(ReadFile(Path("report.txt")).find("lost events: 0\n"), std::string::npos);
}

TEST_F(CliTest, AnalyzeFailOnFindings) {
  if (predictor::Engines().empty()) {
    GTEST_SKIP() << "SKIPPED: the engine registry is empty in this build, so no analysis can find anything; "
                    "--fail-on-findings is only tested once engines are registered";
  }
  // Unprotected writes and reads from two threads: every race engine reports them.
  auto g = Seer("gen --events 2000 --threads 2 --locks 0 --vars 2 --locations 8 --write-fraction 0.5 -o " +
                Path("racy.seer"));
  ASSERT_EQ(g.code, 0) << g.err;
  auto r = Seer("analyze " + Path("racy.seer") + " --fail-on-findings");
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  r = Seer("analyze " + Path("racy.seer"));
  EXPECT_EQ(r.code, 0) << r.err;
}

// Every damaged or wrong input: `info` and `analyze` exit 2 with one line naming the file.
TEST_F(CliTest, BadTraceInputs) {
  std::vector<std::pair<std::string, std::string>> cases;  // path, expected text
  // Random bytes.
  std::mt19937_64 rng(11);
  std::string junk(100000, '\0');
  for (auto& ch : junk) ch = static_cast<char>(rng());
  WriteFile(Path("junk.seer"), junk);
  cases.push_back({Path("junk.seer"), "junk.seer: not a seer trace"});
  // Empty file.
  WriteFile(Path("empty.seer"), "");
  cases.push_back({Path("empty.seer"), "empty.seer: not a seer trace (empty file)"});
  // An STD text file given as a trace.
  cases.push_back({test::DataFile("basic.std"), "basic.std: not a seer trace"});
  // Missing file and a directory.
  cases.push_back({Path("missing.seer"), "missing.seer: no such file"});
  cases.push_back({dir_.string(), "is a directory"});
  // Truncated trace.
  ASSERT_EQ(Seer("gen --events 300000 -o " + Path("big.seer")).code, 0);
  const std::string big = ReadFile(Path("big.seer"));
  WriteFile(Path("cut.seer"), big.substr(0, big.size() / 2));
  cases.push_back({Path("cut.seer"), "cut.seer: truncated"});
  // Wrong format version.
  {
    std::unique_ptr<TraceWriter> w;
    ASSERT_TRUE(TraceWriter::Create(Path("v9.seer"), {}, &w).ok());
    w->SetMeta(meta::kFormatVersion, "9");
    ASSERT_TRUE(w->Close().ok());
  }
  cases.push_back({Path("v9.seer"), "v9.seer: trace format version 9; this seer reads versions 1 to " +
                                        std::to_string(kTraceFormatVersion)});
  // A flipped byte inside a compressed chunk: find chunk 1 by its header.
  {
    std::string bytes = big;
    std::string header;
    store::coding::PutFixed64(&header, 1 << 16);  // the second chunk starts at event 65536
    store::coding::PutFixed32(&header, 1 << 16);  // and holds 65536 events
    size_t at = bytes.find(header);
    ASSERT_NE(at, std::string::npos);
    bytes[at + store::kChunkHeaderSize + 300] ^= 0x10;
    WriteFile(Path("flip.seer"), bytes);
    cases.push_back({Path("flip.seer"), "flip.seer: chunk 1"});
  }
  for (const auto& [path, what] : cases) {
    SCOPED_TRACE(path);
    ExpectInputError(Seer("info " + path), what);
    ExpectInputError(Seer("info --json " + path), what);
    ExpectInputError(Seer("analyze " + path), what);
    ExpectInputError(Seer("export " + path), what);
  }
}

TEST_F(CliTest, UsageErrorsExitTwo) {
  EXPECT_EQ(Seer("").code, 2);
  EXPECT_EQ(Seer("frobnicate").code, 2);
  EXPECT_EQ(Seer("import").code, 2);
  EXPECT_EQ(Seer("export " + Path("x.seer") + " --format csv").code, 2);
  EXPECT_EQ(Seer("analyze " + Path("x.seer") + " --format xml").code, 2);
  EXPECT_EQ(Seer("--help").code, 0);
}

}  // namespace
}  // namespace seer
