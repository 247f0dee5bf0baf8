// STD import and export at the library level: the mapping to events, names,
// round trips, line endings, and every kind of input error with its line.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <set>

#include "interop/std_export.h"
#include "interop/std_import.h"
#include "tests/support/cli_test_util.h"

namespace seer::interop {
namespace {

using test::ReadFile;
using test::ReadTrace;
using test::WriteFile;

class StdFormatTest : public test::TempDirTest {
 protected:
  // Imports `text` (written to a file) into a trace; returns the status.
  Status Import(const std::string& text, ImportStats* stats = nullptr, const std::string& name = "in.std") {
    WriteFile(Path(name), text);
    return ImportFile(Path(name), stats);
  }
  Status ImportFile(const std::string& in, ImportStats* stats = nullptr) {
    std::unique_ptr<TraceWriter> w;
    Status s = TraceWriter::Create(Path("t.seer"), {}, &w);
    if (!s.ok()) return s;
    ImportStats local;
    s = ImportStd(in, w.get(), stats ? stats : &local);
    if (!s.ok()) return s;
    return w->Close();
  }
  std::string Export(const std::string& trace, ExportStats* stats = nullptr) {
    std::unique_ptr<TraceReader> r;
    Status s = TraceReader::Open(trace, &r);
    EXPECT_TRUE(s.ok()) << s.ToString();
    if (!s.ok()) return "";
    const std::string out = Path("out.std");
    std::FILE* f = std::fopen(out.c_str(), "w");
    ExportStats local;
    s = ExportStd(r.get(), f, stats ? stats : &local);
    std::fclose(f);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return ReadFile(out);
  }
  // The message of a failed import, checked to name the file and `line`.
  std::string ImportError(const std::string& text, int line) {
    Status s = Import(text);
    EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << s.ToString();
    const std::string where = Path("in.std") + ":" + std::to_string(line) + ": ";
    EXPECT_EQ(s.message().rfind(where, 0), 0u) << "expected the message to start with " << where << ": " << s.message();
    return s.message();
  }
};

TEST_F(StdFormatTest, MapsLinesToEvents) {
  ImportStats stats;
  ASSERT_TRUE(ImportFile(test::DataFile("basic.std"), &stats).ok());
  EXPECT_EQ(stats.lines, 12u);
  EXPECT_EQ(stats.events, 12u);
  EXPECT_EQ(stats.threads, 2u);
  EXPECT_EQ(stats.locks, 1u);
  EXPECT_EQ(stats.variables, 2u);
  std::vector<Event> ev;
  TraceInfo info;
  ASSERT_TRUE(ReadTrace(Path("t.seer"), &ev, &info).ok());
  ASSERT_EQ(ev.size(), 12u);
  // T0|fork(T1)|1
  EXPECT_EQ(ev[0].kind, EventKind::kFork);
  EXPECT_EQ(ev[0].tid, 0u);
  EXPECT_EQ(ev[0].object, 1u);
  EXPECT_EQ(ev[0].pc, 1u);
  // T0|w(x)|3: variable x is id 0, one byte
  EXPECT_EQ(ev[2].kind, EventKind::kWrite);
  EXPECT_EQ(ev[2].object, 0u);
  EXPECT_EQ(ev[2].aux, 1u);
  // T1|acq(l)|5
  EXPECT_EQ(ev[4].kind, EventKind::kAcquire);
  EXPECT_EQ(ev[4].tid, 1u);
  EXPECT_EQ(ev[4].object, 0u);
  EXPECT_EQ(ev[4].mode, 0u);
  // T1|w(y)|8: y is the second variable
  EXPECT_EQ(ev[7].object, 1u);
  EXPECT_EQ(ev[9].kind, EventKind::kAtomicBegin);
  EXPECT_EQ(ev[10].kind, EventKind::kAtomicEnd);
  EXPECT_EQ(ev[11].kind, EventKind::kJoin);
  EXPECT_EQ(ev[11].pc, 12u);
  EXPECT_EQ(info.Meta(meta::kSource), "std-import");
  EXPECT_EQ(info.Meta(meta::kPcKind), "location");
  ASSERT_EQ(info.threads.size(), 2u);
  EXPECT_EQ(info.threads[1].name, "T1");
  EXPECT_EQ(info.threads[1].parent, 0);
  EXPECT_EQ(info.threads[0].parent, -1);
}

TEST_F(StdFormatTest, RoundTripIsByteIdentical) {
  for (const char* name : {"basic.std", "names.std", "seer_ops.std", "lock_handoff.std"}) {
    SCOPED_TRACE(name);
    const std::string text = ReadFile(test::DataFile(name));
    ASSERT_FALSE(text.empty());
    Status s = ImportFile(test::DataFile(name));
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(Export(Path("t.seer")), text);
  }
}

TEST_F(StdFormatTest, KeepsNames) {
  ASSERT_TRUE(ImportFile(test::DataFile("names.std")).ok());
  std::unique_ptr<TraceReader> r;
  ASSERT_TRUE(TraceReader::Open(Path("t.seer"), &r).ok());
  EXPECT_EQ(r->Name(Namespace::kThread, 0), "main-thread");
  EXPECT_EQ(r->Name(Namespace::kThread, 1), "worker.1");
  EXPECT_EQ(r->Name(Namespace::kLock, 0), "lock@0x7f00");
  EXPECT_EQ(r->Name(Namespace::kVariable, 0), "obj[3].field");
  EXPECT_EQ(r->Name(Namespace::kVariable, 1), "x:y");
  // A name that looks like a fallback name is still just a name.
  EXPECT_EQ(r->Name(Namespace::kLock, 1), "L0");
  EXPECT_EQ(r->Name(Namespace::kVariable, 2), "V0");
  EXPECT_EQ(r->info().threads[2].name, "worker_2");
}

TEST_F(StdFormatTest, ReacquiringAHeldLockIsKept) {
  ASSERT_TRUE(ImportFile(test::DataFile("names.std")).ok());
  std::vector<Event> ev;
  ASSERT_TRUE(ReadTrace(Path("t.seer"), &ev).ok());
  EXPECT_EQ(ev[2].kind, EventKind::kAcquire);
  EXPECT_EQ(ev[3].kind, EventKind::kAcquire);
  EXPECT_EQ(ev[5].kind, EventKind::kRelease);
  EXPECT_EQ(ev[6].kind, EventKind::kRelease);
}

TEST_F(StdFormatTest, SeerOnlyOpsImportAsTheirKinds) {
  ASSERT_TRUE(ImportFile(test::DataFile("seer_ops.std")).ok());
  std::vector<Event> ev;
  ASSERT_TRUE(ReadTrace(Path("t.seer"), &ev).ok());
  ASSERT_EQ(ev.size(), 28u);
  EXPECT_EQ(ev[0].kind, EventKind::kThreadBegin);
  EXPECT_EQ(ev[3].kind, EventKind::kFuncEntry);
  EXPECT_EQ(ev[3].object, 4198400u);
  EXPECT_EQ(ev[4].kind, EventKind::kAtomicLoad);
  EXPECT_EQ(ev[4].mode, static_cast<uint8_t>(MemoryOrder::kAcquire));  // order=acquire
  EXPECT_EQ(ev[5].mode, static_cast<uint8_t>(MemoryOrder::kRelaxed));  // no order: relaxed
  EXPECT_EQ(ev[6].kind, EventKind::kAtomicRmw);
  EXPECT_EQ(ev[7].kind, EventKind::kAlloc);
  EXPECT_EQ(ev[7].aux, 16u);  // size=16
  EXPECT_EQ(ev[8].aux, 1u);
  EXPECT_EQ(ev[8].object, ev[7].object);  // w(buf) names the allocated variable
  EXPECT_EQ(ev[10].kind, EventKind::kSignal);
  EXPECT_EQ(ev[11].kind, EventKind::kWait);
  EXPECT_EQ(ev[11].object, ev[10].object);
  EXPECT_EQ(ev[12].kind, EventKind::kAcquire);
  EXPECT_EQ(ev[13].kind, EventKind::kCondWaitBegin);
  EXPECT_EQ(ev[13].aux, ev[12].object);  // mutex=m
  EXPECT_EQ(ev[14].kind, EventKind::kCondWaitEnd);
  EXPECT_EQ(ev[14].aux, ev[12].object);
  EXPECT_EQ(ev[20].kind, EventKind::kBranch);
  EXPECT_EQ(ev[21].kind, EventKind::kFuncExit);
}

TEST_F(StdFormatTest, CrlfAndMissingFinalNewline) {
  const std::string canonical = "T0|w(x)|1\nT1|r(x)|2\nT1|begin|3\n";
  ASSERT_TRUE(Import("T0|w(x)|1\r\nT1|r(x)|2\r\nT1|begin|3\r\n").ok());
  EXPECT_EQ(Export(Path("t.seer")), canonical);
  ASSERT_TRUE(Import("T0|w(x)|1\nT1|r(x)|2\nT1|begin|3").ok());
  EXPECT_EQ(Export(Path("t.seer")), canonical);
  ASSERT_TRUE(Import("T0|w(x)|1\r\nT1|r(x)|2\r\nT1|begin|3").ok());
  EXPECT_EQ(Export(Path("t.seer")), canonical);
}

TEST_F(StdFormatTest, BlankLinesAreSkippedButCounted) {
  ImportStats stats;
  ASSERT_TRUE(Import("\nT0|w(x)|1\n\n  \nT1|r(x)|2\n", &stats).ok());
  EXPECT_EQ(stats.events, 2u);
  EXPECT_EQ(stats.lines, 5u);
  ImportError("\nT0|w(x)|1\n\r\n\nT0|foo(x)|2\n", 5);
}

TEST_F(StdFormatTest, BeginAndEndMayCarryParentheses) {
  ASSERT_TRUE(Import("T0|begin()|1\nT0|end(x)|2\n").ok());
  EXPECT_EQ(Export(Path("t.seer")), "T0|begin|1\nT0|end|2\n");
}

TEST_F(StdFormatTest, EmptyFileGivesAnEmptyTrace) {
  ImportStats stats;
  ASSERT_TRUE(Import("", &stats).ok());
  EXPECT_EQ(stats.events, 0u);
  EXPECT_EQ(Export(Path("t.seer")), "");
}

TEST_F(StdFormatTest, SyntaxErrorsNameTheLine) {
  const std::string ok = "T0|w(x)|1\n";
  EXPECT_NE(ImportError(ok + "hello\n", 2).find("expected `thread|op(arg)|loc`, found `hello`"), std::string::npos);
  EXPECT_NE(ImportError(ok + "T0|r(x)\n", 2).find("expected `thread|op(arg)|loc`"), std::string::npos);
  EXPECT_NE(ImportError(ok + ok + "T0|r(x)|1|2\n", 3).find("expected `thread|op(arg)|loc`"), std::string::npos);
  EXPECT_NE(ImportError("T0|foo(x)|1\n", 1).find("unknown operation `foo`"), std::string::npos);
  EXPECT_NE(ImportError("T0|read(x)|1\n", 1).find("unknown operation `read`"), std::string::npos);
  EXPECT_NE(ImportError(ok + "T0|r(x)|x1\n", 2).find("location `x1` is not"), std::string::npos);
  EXPECT_NE(ImportError("T0|r(x)|\n", 1).find("location `` is not"), std::string::npos);
  EXPECT_NE(ImportError("T0|r(x)|-3\n", 1).find("location `-3` is not"), std::string::npos);
  EXPECT_NE(ImportError("T0|r(x)|99999999999999999999999\n", 1).find("is not"), std::string::npos);
  EXPECT_NE(ImportError("T0|r(x|1\n", 1).find("closing `)`"), std::string::npos);
  EXPECT_NE(ImportError("T0|r|1\n", 1).find("needs an argument"), std::string::npos);
  EXPECT_NE(ImportError("T0|r()|1\n", 1).find("bad name ``"), std::string::npos);
  EXPECT_NE(ImportError("|r(x)|1\n", 1).find("bad name ``"), std::string::npos);
  EXPECT_NE(ImportError("T 0|r(x)|1\n", 1).find("bad name `T 0`"), std::string::npos);
  EXPECT_NE(ImportError("T0|r(a(b)|1\n", 1).find("bad name `a(b`"), std::string::npos);
  EXPECT_NE(ImportError("T0|func_entry(main)|1\n", 1).find("is not an integer"), std::string::npos);
  EXPECT_NE(ImportError("T0|fence(strong)|1\n", 1).find("`strong` is not a memory order"), std::string::npos);
  EXPECT_NE(ImportError("T0|fence|1\n", 1).find("needs an argument"), std::string::npos);
}

// A fence keeps its memory order through import and export.
TEST_F(StdFormatTest, FencesRoundTrip) {
  const std::string text = "T0|fence(release)|1\nT0|fence(seq_cst)|2\n";
  ASSERT_TRUE(Import(text).ok());
  std::vector<Event> ev;
  ASSERT_TRUE(ReadTrace(Path("t.seer"), &ev).ok());
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].kind, EventKind::kFence);
  EXPECT_EQ(ev[0].mode, static_cast<uint8_t>(MemoryOrder::kRelease));
  EXPECT_EQ(ev[1].mode, static_cast<uint8_t>(MemoryOrder::kSeqCst));
  EXPECT_EQ(Export(Path("t.seer")), text);
}

TEST_F(StdFormatTest, LockSemanticsViolationsNameTheLine) {
  EXPECT_NE(
      ImportError("T0|acq(l)|1\nT0|w(x)|2\nT1|acq(l)|3\n", 3).find("thread `T1` acquires lock `l` held by thread `T0`"),
      std::string::npos);
  EXPECT_NE(ImportError("T0|rel(l)|1\n", 1).find("thread `T0` releases lock `l`, which it does not hold"),
            std::string::npos);
  EXPECT_NE(ImportError("T0|acq(l)|1\nT1|rel(l)|2\n", 2).find("releases lock `l`"), std::string::npos);
  // Re-acquired twice, released once: still held.
  ImportError("T0|acq(l)|1\nT0|acq(l)|2\nT0|rel(l)|3\nT1|acq(l)|4\n", 4);
  EXPECT_TRUE(Import("T0|acq(l)|1\nT0|acq(l)|2\nT0|rel(l)|3\nT0|rel(l)|4\nT1|acq(l)|5\nT1|rel(l)|6\n").ok());
}

TEST_F(StdFormatTest, AttributeErrorsNameTheLine) {
  EXPECT_NE(ImportError("T0|cond_wait_begin(c)|1\n", 1).find("needs the mutex it releases"), std::string::npos);
  EXPECT_NE(ImportError("T0|cond_wait_begin(c mutex=m)|1\n", 1).find("releases lock `m`, which it does not hold"),
            std::string::npos);
  EXPECT_NE(ImportError("T0|acq(m)|1\nT0|cond_wait_begin(c mutex=m)|2\nT1|acq(m)|3\nT0|cond_wait_end(c mutex=m)|4\n", 4)
                .find("thread `T0` acquires lock `m` held by thread `T1`"),
            std::string::npos);
  EXPECT_NE(ImportError("T0|r(x size=abc)|1\n", 1).find("bad value in attribute `size=abc` of `r`"), std::string::npos);
  EXPECT_NE(ImportError("T0|r(x size)|1\n", 1).find("bad value in attribute `size`"), std::string::npos);
  EXPECT_NE(ImportError("T0|acq(l size=4)|1\n", 1).find("attribute `size=4` does not apply to `acq`"),
            std::string::npos);
  EXPECT_NE(ImportError("T0|r(x order=seq_cst)|1\n", 1).find("does not apply to `r`"), std::string::npos);
  EXPECT_NE(ImportError("T0|atomic_load(x order=strong)|1\n", 1).find("bad value"), std::string::npos);
  EXPECT_NE(ImportError("T0|acq(l mode=weird)|1\n", 1).find("bad value"), std::string::npos);
  EXPECT_NE(ImportError("T0|r(x at=5)|1\nT0|r(y at=5)|2\n", 2).find("the id of another variable"), std::string::npos);
  EXPECT_NE(ImportError("T0|r(x)|1\nT0|r(y at=0)|2\n", 2).find("the id of another variable"), std::string::npos);
  EXPECT_NE(ImportError("T0|r(x at=5)|1\nT0|r(x at=6)|2\n", 2).find("is at address 5, not 6"), std::string::npos);
}

// `region=` keeps what a recorded kAlloc says it allocates (a thread's stack or
// TLS block): import sets the mode, export writes it back, heap is the default.
TEST_F(StdFormatTest, AllocRegionsRoundTrip) {
  const std::string text =
      "T0|alloc(s at=4096 size=64 region=stack)|1\nT0|alloc(t at=8192 size=8 region=tls)|2\n"
      "T0|alloc(h at=12288 size=4)|3\nT0|w(s)|4\nT0|alloc(f at=16384 region=fd)|5\n";  // size 1: the default
  ASSERT_TRUE(Import(text).ok());
  std::vector<Event> ev;
  ASSERT_TRUE(ReadTrace(Path("t.seer"), &ev).ok());
  ASSERT_EQ(ev.size(), 5u);
  EXPECT_EQ(ev[0].mode, static_cast<uint8_t>(AllocRegion::kStack));
  EXPECT_EQ(ev[1].mode, static_cast<uint8_t>(AllocRegion::kTls));
  EXPECT_EQ(ev[2].mode, static_cast<uint8_t>(AllocRegion::kHeap));
  EXPECT_EQ(ev[4].mode, static_cast<uint8_t>(AllocRegion::kFileDescriptor));
  EXPECT_EQ(Export(Path("t.seer")), text);
  EXPECT_NE(ImportError("T0|alloc(x region=heap2)|1\n", 1).find("bad value in attribute `region=heap2`"),
            std::string::npos);
  EXPECT_NE(ImportError("T0|w(x region=stack)|1\n", 1).find("does not apply to `w`"), std::string::npos);
}

TEST_F(StdFormatTest, SharedLockModes) {
  EXPECT_TRUE(Import("T0|acq(l mode=shared)|1\nT1|acq(l mode=shared)|2\nT0|rel(l mode=shared)|3\n"
                     "T1|rel(l)|4\nT2|acq(l)|5\n")
                  .ok());
  EXPECT_NE(ImportError("T0|acq(l mode=shared)|1\nT1|acq(l)|2\n", 2)
                .find("thread `T1` acquires lock `l` held in read mode by thread `T0`"),
            std::string::npos);
  EXPECT_NE(ImportError("T0|acq(l)|1\nT1|acq(l mode=shared)|2\n", 2).find("held by thread `T0`"), std::string::npos);
  // Plain lines that skip dense ids already given by `at=`.
  ASSERT_TRUE(Import("T0|r(x at=1)|1\nT0|r(y)|2\nT0|r(z)|3\n").ok());
  std::vector<Event> ev;
  ASSERT_TRUE(ReadTrace(Path("t.seer"), &ev).ok());
  ASSERT_EQ(ev.size(), 3u);
  EXPECT_EQ(ev[0].object, 1u);
  EXPECT_EQ(ev[1].object, 0u);
  EXPECT_EQ(ev[2].object, 2u);
}

// What the engines use of a recorded trace survives export and import: sizes
// and addresses (which accesses overlap), lock modes, memory orders, and the
// mutex of a cond wait. Lock and thread ids are renumbered consistently.
TEST_F(StdFormatTest, AttributesRoundTripEveryFieldTheEnginesUse) {
  std::vector<Event> in;
  auto add = [&](uint32_t tid, EventKind kind, uint64_t object, uint64_t aux, uint8_t mode = 0) {
    Event e;
    e.index = in.size();
    e.tid = tid;
    e.kind = kind;
    e.object = object;
    e.aux = aux;
    e.mode = mode;
    e.pc = 100 + in.size();
    in.push_back(e);
  };
  const uint8_t shared = static_cast<uint8_t>(LockMode::kShared);
  add(0, EventKind::kFork, 1, 0);
  add(1, EventKind::kAlloc, 0x1000, 64);
  add(1, EventKind::kWrite, 0x1000, 8);
  add(0, EventKind::kRead, 0x1004, 2);  // overlaps the write, starts elsewhere
  add(0, EventKind::kRead, 0x1001, 1);
  add(1, EventKind::kAtomicRmw, 0x1010, 4, static_cast<uint8_t>(MemoryOrder::kSeqCst));
  add(1, EventKind::kAcquire, 0x2000, 0, shared);
  add(0, EventKind::kAcquire, 0x2000, 0, shared);
  add(1, EventKind::kRelease, 0x2000, 0, shared);
  add(0, EventKind::kRelease, 0x2000, 0, shared);
  add(1, EventKind::kAcquire, 0x3000, 0);
  add(1, EventKind::kCondWaitBegin, 0x4000, 0x3000);
  add(0, EventKind::kAcquire, 0x3000, 0);
  add(0, EventKind::kSignal, 0x4000, 0);
  add(0, EventKind::kRelease, 0x3000, 0);
  add(1, EventKind::kCondWaitEnd, 0x4000, 0x3000);
  add(1, EventKind::kRelease, 0x3000, 0);
  add(1, EventKind::kFree, 0x1000, 0);
  {
    std::unique_ptr<TraceWriter> w;
    ASSERT_TRUE(TraceWriter::Create(Path("r.seer"), {}, &w).ok());
    for (const Event& e : in) ASSERT_TRUE(w->Append(e).ok());
    ASSERT_TRUE(w->Close().ok());
  }
  ExportStats stats;
  const std::string text = Export(Path("r.seer"), &stats);
  EXPECT_EQ(stats.lossy_events, 0u);
  ASSERT_TRUE(Import(text).ok()) << text;
  std::vector<Event> out;
  ASSERT_TRUE(ReadTrace(Path("t.seer"), &out).ok());
  ASSERT_EQ(out.size(), in.size());
  std::map<uint64_t, uint64_t> locks, threads;
  for (size_t i = 0; i < in.size(); ++i) {
    SCOPED_TRACE("event " + std::to_string(i) + ": " + text);
    const Event &a = in[i], &b = out[i];
    EXPECT_EQ(b.kind, a.kind);
    EXPECT_EQ(b.pc, a.pc);
    EXPECT_EQ(b.mode, a.mode);
    auto [t, fresh_t] = threads.emplace(a.tid, b.tid);
    EXPECT_EQ(t->second, b.tid);
    if (IsMemoryEvent(a.kind)) {
      EXPECT_EQ(b.object, a.object);  // addresses kept: overlaps are restored
      EXPECT_EQ(b.aux, a.aux);
    } else if (a.kind == EventKind::kFork) {
      auto [c, fresh_c] = threads.emplace(a.object, b.object);
      EXPECT_EQ(c->second, b.object);
    } else {
      auto [l, fresh_l] = locks.emplace(a.object, b.object);
      EXPECT_EQ(l->second, b.object);
      if (a.kind == EventKind::kCondWaitBegin || a.kind == EventKind::kCondWaitEnd) {
        auto [m, fresh_m] = locks.emplace(a.aux, b.aux);
        EXPECT_EQ(m->second, b.aux);
      }
    }
  }
  EXPECT_EQ(locks.size(), 3u);  // three distinct objects stay distinct
  std::set<uint64_t> imported;
  for (const auto& [from, to] : locks) imported.insert(to);
  EXPECT_EQ(imported.size(), 3u);
  // Exporting the imported trace gives the same text again.
  EXPECT_EQ(Export(Path("t.seer")), text);
  EXPECT_NE(text.find("T0|r(V4100 at=4100 size=2)|103"), std::string::npos) << text;
  EXPECT_NE(text.find("cond_wait_begin(L16384 mutex=L12288)"), std::string::npos) << text;
  EXPECT_NE(text.find("atomic_rmw(V4112 at=4112 size=4 order=seq_cst)"), std::string::npos) << text;
  EXPECT_NE(text.find("acq(L8192 mode=shared)"), std::string::npos) << text;
  EXPECT_NE(text.find("free(V4096 size=0)"), std::string::npos) << text;
}

TEST_F(StdFormatTest, MissingFileAndDirectory) {
  std::unique_ptr<TraceWriter> w;
  ASSERT_TRUE(TraceWriter::Create(Path("t.seer"), {}, &w).ok());
  ImportStats stats;
  Status s = ImportStd(Path("nope.std"), w.get(), &stats);
  EXPECT_EQ(s.code(), Status::Code::kNotFound);
  EXPECT_NE(s.message().find("nope.std"), std::string::npos);
  s = ImportStd(dir_.string(), w.get(), &stats);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find("directory"), std::string::npos);
}

// Traces not imported from STD: objects without names get fallback names, and
// what a plain line cannot hold is written as attributes (variables with their
// address: the trace's pc_kind is not `location`).
TEST_F(StdFormatTest, ExportOfUnnamedTraceUsesFallbackNamesAndAttributes) {
  std::unique_ptr<TraceWriter> w;
  ASSERT_TRUE(TraceWriter::Create(Path("r.seer"), {}, &w).ok());
  auto add = [&](uint32_t tid, EventKind kind, uint64_t object, uint64_t aux, uint8_t mode, uint64_t pc) {
    Event e;
    e.tid = tid;
    e.kind = kind;
    e.object = object;
    e.aux = aux;
    e.mode = mode;
    e.pc = pc;
    ASSERT_TRUE(w->Append(e).ok());
  };
  add(0, EventKind::kFork, 3, 0, 0, 10);
  add(3, EventKind::kWrite, 0x1000, 8, 0, 11);
  add(3, EventKind::kAcquire, 0x2000, 0, static_cast<uint8_t>(LockMode::kShared), 12);
  add(3, EventKind::kRelease, 0x2000, 0, 0, 13);
  add(0, EventKind::kRead, 0x1000, 1, 0, 14);
  add(0, EventKind::kAtomicLoad, 0x1000, 1, 0, 15);
  ASSERT_TRUE(w->Close().ok());
  ExportStats stats;
  EXPECT_EQ(Export(Path("r.seer"), &stats),
            "T0|fork(T3)|10\nT3|w(V4096 at=4096 size=8)|11\nT3|acq(L8192 mode=shared)|12\nT3|rel(L8192)|13\n"
            "T0|r(V4096)|14\nT0|atomic_load(V4096)|15\n");
  EXPECT_EQ(stats.events, 6u);
  EXPECT_EQ(stats.lossy_events, 0u);
  EXPECT_EQ(stats.non_rapid_events, 3u);  // two lines with attributes, one seer-only kind
}

// STD has no trylock: a trylock or timed acquire is written as a plain `acq`
// line (RAPID reads it), counted, and imported back as a blocking acquire.
TEST_F(StdFormatTest, ExportWritesTrylocksAsPlainAcquiresAndCountsThem) {
  std::unique_ptr<TraceWriter> w;
  ASSERT_TRUE(TraceWriter::Create(Path("r.seer"), {}, &w).ok());
  uint64_t pc = 0;
  auto lock = [&](EventKind kind, uint64_t lock, AcquireHow how, LockMode mode) {
    Event e;
    e.kind = kind;
    e.object = lock;
    e.aux = static_cast<uint64_t>(how);
    e.mode = static_cast<uint8_t>(mode);
    e.pc = ++pc;
    ASSERT_TRUE(w->Append(e).ok());
  };
  lock(EventKind::kAcquire, 1, AcquireHow::kTry, LockMode::kExclusive);
  lock(EventKind::kAcquire, 2, AcquireHow::kTimed, LockMode::kShared);
  lock(EventKind::kAcquire, 3, AcquireHow::kBlocking, LockMode::kExclusive);
  lock(EventKind::kRelease, 3, AcquireHow::kBlocking, LockMode::kExclusive);
  lock(EventKind::kRelease, 2, AcquireHow::kBlocking, LockMode::kShared);
  lock(EventKind::kRelease, 1, AcquireHow::kBlocking, LockMode::kExclusive);
  ASSERT_TRUE(w->Close().ok());
  ExportStats stats;
  const std::string text = Export(Path("r.seer"), &stats);
  EXPECT_EQ(text,
            "T0|acq(L1)|1\nT0|acq(L2 mode=shared)|2\nT0|acq(L3)|3\nT0|rel(L3)|4\nT0|rel(L2 mode=shared)|5\n"
            "T0|rel(L1)|6\n");
  EXPECT_EQ(stats.nonblocking_acquires, 2u);
  EXPECT_EQ(stats.non_rapid_events, 2u);  // only the read-mode lines
  ASSERT_TRUE(Import(text).ok());
  std::vector<Event> ev;
  TraceInfo info;
  ASSERT_TRUE(ReadTrace(Path("t.seer"), &ev, &info).ok());
  for (const Event& e : ev) EXPECT_FALSE(IsNonBlockingAcquire(e)) << e.index;
}

// A generated trace gets no `at=` (its variable ids do not matter when every
// variable is one byte); an access of another size is written with its size
// and counted, since import will not restore its overlaps.
TEST_F(StdFormatTest, ExportOfGeneratedTraceStaysPlainAndCountsSizes) {
  std::unique_ptr<TraceWriter> w;
  ASSERT_TRUE(TraceWriter::Create(Path("g.seer"), {}, &w).ok());
  w->SetMeta(meta::kSource, "gen");
  w->SetMeta(meta::kPcKind, "location");
  Event e;
  e.kind = EventKind::kWrite;
  e.object = 7;
  e.aux = 1;
  ASSERT_TRUE(w->Append(e).ok());
  e.aux = 4;
  ASSERT_TRUE(w->Append(e).ok());
  ASSERT_TRUE(w->Close().ok());
  ExportStats stats;
  EXPECT_EQ(Export(Path("g.seer"), &stats), "T0|w(V7)|0\nT0|w(V7 size=4)|0\n");
  EXPECT_EQ(stats.lossy_events, 1u);
}

TEST_F(StdFormatTest, ExportNeverWritesTwoObjectsUnderOneName) {
  std::unique_ptr<TraceWriter> w;
  ASSERT_TRUE(TraceWriter::Create(Path("r.seer"), {}, &w).ok());
  w->AddThread({0, 10, -1, "worker"});
  w->AddThread({1, 11, 0, "worker"});         // same name as thread 0
  w->AddThread({2, 12, 0, "worker thread"});  // not a valid STD name
  w->SetName(Namespace::kVariable, 5, "V6");  // looks like the fallback of variable 6
  for (uint32_t t = 0; t < 3; ++t) {
    Event e;
    e.tid = t;
    e.kind = EventKind::kRead;
    e.object = 5 + t % 2;
    e.aux = 1;
    ASSERT_TRUE(w->Append(e).ok());
  }
  ASSERT_TRUE(w->Close().ok());
  EXPECT_EQ(Export(Path("r.seer")), "worker|r(V6 at=5)|0\nT1|r(V6_ at=6)|0\nT2|r(V6)|0\n");
}

}  // namespace
}  // namespace seer::interop
