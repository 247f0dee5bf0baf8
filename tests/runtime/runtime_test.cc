// End-to-end tests of the in-process runtime: programs built with seer-cc /
// seer-c++ (gcc and clang) are recorded with RecordInproc and their decoded
// traces checked: exact counts, program order, lock semantics, nothing lost at
// exit or crash, overflow counted, gcc and clang giving the same events.
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "recorder/recorder.h"
#include "seer/ring_record.h"
#include "seer/trace.h"
#include "tests/support/program_suite.h"
#include "tests/support/trace_io.h"

namespace seer {
namespace {

const std::string kPrograms = SEER_RT_TEST_PROGRAMS;

// One whole in-process recording of argv into `trace` (seer record --sync=inproc).
Status RecordInproc(const std::vector<std::string>& argv, const recorder::InprocOptions& options,
                    const std::string& trace, recorder::RecordResult* result) {
  recorder::RecordOptions o;
  o.mode = recorder::RecordMode::kInproc;
  o.command = argv;
  o.output = trace;
  o.inproc = options;
  return recorder::Record(o, result);
}

struct Recording {
  recorder::RecordResult result;
  TraceInfo info;
  std::vector<Event> events;
  std::map<std::string, uint64_t> addr;  // the program's manifest

  uint64_t At(const std::string& name) const {
    auto it = addr.find(name);
    EXPECT_NE(it, addr.end()) << "manifest has no " << name;
    return it == addr.end() ? 0 : it->second;
  }

  // Events of `kind` on `object`, optionally of byte count `aux`.
  int Count(EventKind kind, uint64_t object, int64_t aux = -1) const {
    int n = 0;
    for (const Event& e : events)
      if (e.kind == kind && e.object == object && (aux < 0 || e.aux == static_cast<uint64_t>(aux))) ++n;
    return n;
  }
  int Count(EventKind kind) const {
    int n = 0;
    for (const Event& e : events) n += e.kind == kind;
    return n;
  }
};

// A file of this process's tests, in a directory of its own removed at exit.
std::string TempPath(const std::string& stem) {
  static const test::ScratchDir scratch("seer-runtime-test");
  return scratch.Path(stem);
}

// Records `program` (a name under the programs folder) with its manifest file as
// the first argument, then reads the whole trace and the manifest back. With
// `ebpf`, the recorder's BPF probes record its synchronisation instead of the
// runtime, and the runtime its accesses (`seer record --sync=ebpf`).
Recording Record(const std::string& program, std::vector<std::string> args = {},
                 recorder::InprocOptions options = recorder::InprocOptions(), bool ebpf = false) {
  Recording rec;
  const std::string manifest = TempPath(program + ".manifest");
  const std::string trace = TempPath(program + ".seer");
  std::vector<std::string> argv = {kPrograms + "/" + program, manifest};
  argv.insert(argv.end(), args.begin(), args.end());
  options.writer.sync_on_close = false;
  Status s;
  if (ebpf) {
    recorder::RecordOptions o;
    o.command = argv;
    o.output = trace;
    o.ebpf.runtime = true;
    s = recorder::Record(o, &rec.result);
  } else {
    s = RecordInproc(argv, options, trace, &rec.result);
  }
  EXPECT_TRUE(s.ok()) << s.ToString();
  s = test::ReadTrace(trace, &rec.events, &rec.info);
  EXPECT_TRUE(s.ok()) << s.ToString();
  if (!s.ok()) return rec;
  std::ifstream in(manifest);
  std::string name, hex;
  while (in >> name >> hex) rec.addr[name] = std::stoull(hex, nullptr, 16);
  std::remove(manifest.c_str());
  std::remove(trace.c_str());
  return rec;
}

// Lock semantics in the merged order: no acquire of a held exclusive lock, no
// release by a thread that does not hold it. Cond waits release and re-acquire.
void ExpectLockSemantics(const Recording& rec) {
  std::map<uint64_t, int64_t> holder;  // exclusive holder per lock
  for (const Event& e : rec.events) {
    const bool shared = e.mode == static_cast<uint8_t>(LockMode::kShared);
    if ((e.kind == EventKind::kAcquire && !shared) || e.kind == EventKind::kCondWaitEnd) {
      const uint64_t lock = e.kind == EventKind::kAcquire ? e.object : e.aux;
      auto it = holder.find(lock);
      ASSERT_TRUE(it == holder.end() || it->second < 0)
          << "event " << e.index << ": thread " << e.tid << " acquires a lock held by " << it->second;
      holder[lock] = e.tid;
    } else if ((e.kind == EventKind::kRelease && !shared) || e.kind == EventKind::kCondWaitBegin) {
      const uint64_t lock = e.kind == EventKind::kRelease ? e.object : e.aux;
      ASSERT_EQ(holder[lock], static_cast<int64_t>(e.tid)) << "event " << e.index << ": release by a non-holder";
      holder[lock] = -1;
    }
  }
}

// Each thread starts with kThreadBegin, ends with kThreadEnd (if it ended), and
// its fork precedes its begin, its end precedes its join.
void ExpectThreadOrder(const Recording& rec) {
  std::map<uint32_t, uint64_t> begin, end, fork, join;
  std::map<uint32_t, uint64_t> first, last;
  for (const Event& e : rec.events) {
    if (!first.count(e.tid)) first[e.tid] = e.index;
    last[e.tid] = e.index;
    if (e.kind == EventKind::kThreadBegin) begin[e.tid] = e.index;
    if (e.kind == EventKind::kThreadEnd) end[e.tid] = e.index;
    if (e.kind == EventKind::kFork) fork[static_cast<uint32_t>(e.object)] = e.index;
    if (e.kind == EventKind::kJoin) join[static_cast<uint32_t>(e.object)] = e.index;
  }
  for (const auto& [tid, index] : first) {
    ASSERT_TRUE(begin.count(tid)) << "thread " << tid << " has no begin";
    EXPECT_EQ(begin[tid], index) << "thread " << tid << ": begin is not its first event";
    if (end.count(tid)) {
      EXPECT_EQ(end[tid], last[tid]) << "thread " << tid << ": end is not its last event";
    }
    if (fork.count(tid)) {
      EXPECT_LT(fork[tid], begin[tid]) << "thread " << tid;
    }
    if (join.count(tid)) {
      ASSERT_TRUE(end.count(tid)) << "joined thread " << tid << " has no end";
      EXPECT_LT(end[tid], join[tid]) << "thread " << tid;
    }
  }
}

class AccessesTest : public ::testing::TestWithParam<std::string> {};

TEST_P(AccessesTest, EverySizeUnalignedRangesAndAtomics) {
  const Recording rec = Record("accesses_" + GetParam());
  ASSERT_EQ(rec.result.exit_code, 0) << "the program's own checks of the atomics failed";
  EXPECT_TRUE(rec.result.runtime_seen);
  EXPECT_EQ(rec.result.lost, 0u);
  const auto R = EventKind::kRead, W = EventKind::kWrite;
  for (const auto& [name, size] :
       std::vector<std::pair<std::string, int>>{{"g8", 1}, {"g16", 2}, {"g32", 4}, {"g64", 8}, {"g128", 16}}) {
    EXPECT_EQ(rec.Count(W, rec.At(name), size), 100) << name;
    EXPECT_EQ(rec.Count(R, rec.At(name), size), 100) << name;
  }
  for (const auto& [name, size] :
       std::vector<std::pair<std::string, int>>{{"un.u16", 2}, {"un.u32", 4}, {"un.u64", 8}}) {
    EXPECT_EQ(rec.At(name) % size != 0, true) << name << " is meant to be unaligned";
    EXPECT_EQ(rec.Count(W, rec.At(name), size), 100) << name;
    EXPECT_EQ(rec.Count(R, rec.At(name), size), 100) << name;
  }
  // Ranges: memset, memcpy, memmove, memcmp of n = 1000 bytes, a 200-byte struct copy, strlen.
  const uint64_t src = rec.At("copy_src"), dst = rec.At("copy_dst");
  EXPECT_EQ(rec.Count(W, src, 1000), 1) << "memset";
  EXPECT_EQ(rec.Count(R, src, 1000), 1) << "memcpy source";
  EXPECT_EQ(rec.Count(W, dst, 1000), 1) << "memcpy destination";
  EXPECT_EQ(rec.Count(R, dst, 1000), 1) << "memmove source";
  EXPECT_EQ(rec.Count(W, dst + 8, 1000), 1) << "memmove destination";
  EXPECT_EQ(rec.Count(R, dst, 992), 1) << "memcmp";
  EXPECT_EQ(rec.Count(R, src, 992), 1) << "memcmp";
  EXPECT_EQ(rec.Count(R, rec.At("big_src"), 200), 1) << "struct copy";
  EXPECT_EQ(rec.Count(W, rec.At("big_dst"), 200), 1) << "struct copy";
  EXPECT_EQ(rec.Count(R, rec.At("text"), 20), 1) << "strlen";

  std::vector<std::pair<std::string, int>> atomics = {{"a8", 1}, {"a16", 2}, {"a32", 4}, {"a64", 8}};
  if (GetParam() == "gcc") atomics.push_back({"a128", 16});
  for (const auto& [name, size] : atomics) {
    const uint64_t a = rec.At(name);
    EXPECT_EQ(rec.Count(EventKind::kAtomicLoad, a, size), 2) << name;
    EXPECT_EQ(rec.Count(EventKind::kAtomicStore, a, size), 1) << name;
    EXPECT_EQ(rec.Count(EventKind::kAtomicRmw, a, size), 9) << name;
    std::vector<uint8_t> modes;
    for (const Event& e : rec.events)
      if (IsAtomicAccess(e.kind) && e.object == a) modes.push_back(e.mode);
    // store release, load acquire, exchange seq_cst, add relaxed, sub acq_rel, ...
    const std::vector<uint8_t> expected = {3, 2, 5, 0, 4, 5, 5, 5, 5, 5, 2, 5};
    EXPECT_EQ(modes, expected) << name;
  }
}

INSTANTIATE_TEST_SUITE_P(Compilers, AccessesTest, ::testing::Values("gcc", "clang"));

// Compact ring records store the pc as a distance from the previous access's
// (ring_record.h): every access of pcs.c must still carry a pc between the
// labels around it, whether it was near its predecessor or not.
class PcsTest : public ::testing::TestWithParam<std::string> {};

TEST_P(PcsTest, EveryAccessKeepsItsPcNearOrFar) {
  const Recording rec = Record("pcs_" + GetParam());
  ASSERT_EQ(rec.result.exit_code, 0);
  EXPECT_EQ(rec.result.lost, 0u);
  struct Step {
    std::string object, from, to;
    EventKind kind;
    uint64_t size;
  };
  const auto R = EventKind::kRead, W = EventKind::kWrite;
  const std::vector<Step> steps = {
      {"far_back", "L0", "L1", W, 8}, {"o8", "L1", "L2", W, 1},        {"o16", "L2", "L3", R, 2},
      {"o32", "L3", "L4", W, 4},      {"o64", "L4", "L5", R, 8},       {"o128", "L5", "L6", W, 16},
      {"far_fwd", "L6", "L7", R, 8},  {"in_callee", "C0", "C1", W, 8}, {"after_call", "L7", "L8", W, 8},
  };
  std::map<uint64_t, const Step*> by_object;
  for (const Step& s : steps) by_object[rec.At(s.object)] = &s;
  int checked = 0, near = 0, far = 0;
  std::map<uint32_t, uint64_t> last_pc;  // per thread: its previous access's pc
  for (const Event& e : rec.events) {
    if (!IsAccess(e.kind)) continue;
    auto it = by_object.find(e.object);
    if (it != by_object.end()) {
      const Step& s = *it->second;
      ++checked;
      EXPECT_EQ(e.kind, s.kind) << s.object;
      EXPECT_EQ(e.aux, s.size) << s.object;
      EXPECT_GT(e.pc, rec.At(s.from)) << s.object << " event " << e.index;
      EXPECT_LT(e.pc, rec.At(s.to)) << s.object << " event " << e.index;
      if (last_pc.count(e.tid)) {
        const int64_t delta = static_cast<int64_t>(e.pc - last_pc[e.tid]);
        (delta >= rt::kCompactMinDelta && delta <= rt::kCompactMaxDelta ? near : far)++;
      }
    }
    last_pc[e.tid] = e.pc;
  }
  EXPECT_EQ(checked, 3 * static_cast<int>(steps.size()));  // kRounds in pcs.c
  // Both encodings were exercised (the labels are 0.3 to 6 KB apart).
  EXPECT_GE(near, 6);
  EXPECT_GE(far, 6);
}

INSTANTIATE_TEST_SUITE_P(Compilers, PcsTest, ::testing::Values("gcc", "clang"));

// The dynamic annotations (runtime/annotations.cc) in one thread: the plain
// accesses benign ranges and ignores leave out, and the events the others are.
class AnnotationsTest : public ::testing::TestWithParam<std::string> {};

TEST_P(AnnotationsTest, BenignRangesIgnoresAndEvents) {
  const Recording rec = Record("annotations_" + GetParam());
  ASSERT_EQ(rec.result.exit_code, 0) << "the program's reads under the ignores saw other values";
  EXPECT_EQ(rec.result.lost, 0u);
  const auto R = EventKind::kRead, W = EventKind::kWrite;
  // Left out: inside merged ranges, overlapping a 1-byte range, either side of a split.
  for (const char* name : {"merged_in", "one_byte", "split_left", "split_right", "block_benign"})
    EXPECT_EQ(rec.Count(W, rec.At(name), 1), 0) << name;
  // Recorded: past the ranges, the middle a NewMemory took out.
  for (const char* name : {"merged_past", "next_byte", "split_middle"})
    EXPECT_EQ(rec.Count(W, rec.At(name), 1), 1) << name;
  EXPECT_EQ(rec.Count(EventKind::kAlloc, rec.At("new_memory"), 20), 1);
  // Ignored reads then (nested) ignored writes: two writes and one read remain.
  EXPECT_EQ(rec.Count(W, rec.At("ignored"), 1), 2);
  EXPECT_EQ(rec.Count(R, rec.At("ignored"), 1), 1);
  // The happens-before edge and a read-mode section.
  const uint64_t lock = rec.At("lock");
  EXPECT_EQ(rec.Count(EventKind::kSignal, lock), 1);
  EXPECT_EQ(rec.Count(EventKind::kWait, lock), 1);
  int shared = 0;
  for (const Event& e : rec.events)
    if ((e.kind == EventKind::kAcquire || e.kind == EventKind::kRelease) && e.object == lock)
      shared += e.mode == static_cast<uint8_t>(LockMode::kShared) ? 1 : 100;
  EXPECT_EQ(shared, 2);
  // 5000 one-byte ranges two bytes apart, with 4 ranges already there: the
  // table holds 4096, so the last 908 are dropped and their writes recorded.
  const uint64_t many = rec.At("many");
  int recorded = 0;
  uint64_t first = ~0ull;
  for (const Event& e : rec.events)
    if (e.kind == W && e.object >= many && e.object < many + 2 * 5000) {
      ++recorded;
      first = std::min(first, e.object);
    }
  EXPECT_EQ(recorded, 908);
  EXPECT_EQ(first, many + 2 * 4092);
}

INSTANTIATE_TEST_SUITE_P(Compilers, AnnotationsTest, ::testing::Values("gcc", "clang"));

// File descriptors (runtime/interpose_fd.cc) in one thread, linked with gcc and
// clang and preloaded into a plain build: each descriptor's byte (made fresh by
// its creation and by close, written by its creation and close, read by every
// I/O call and by dup2, before and by the creation of its target),
// a signal before each write and a wait after each read on the sync object of
// the pipe or socketpair, and the buffers as one range each.
class FdTest : public ::testing::TestWithParam<std::string> {};

Recording RecordPreloaded(const std::string& program) {
  Recording rec;
  const std::string manifest = TempPath(program + ".manifest");
  const std::string trace = TempPath(program + ".seer");
  recorder::RecordOptions o;
  o.mode = recorder::RecordMode::kPreload;
  o.command = {kPrograms + "/" + program, manifest};
  o.output = trace;
  const Status s = recorder::Record(o, &rec.result);
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_TRUE(test::ReadTrace(trace, &rec.events, &rec.info).ok());
  std::ifstream in(manifest);
  std::string name, hex;
  while (in >> name >> hex) rec.addr[name] = std::stoull(hex, nullptr, 16);
  std::remove(manifest.c_str());
  std::remove(trace.c_str());
  return rec;
}

TEST_P(FdTest, DescriptorsSyncObjectsAndBuffers) {
  const Recording rec = GetParam() == "plain" ? RecordPreloaded("fd_io_plain") : Record("fd_io_" + GetParam());
  ASSERT_EQ(rec.result.exit_code, 0);
  EXPECT_EQ(rec.result.lost, 0u);
  const auto R = EventKind::kRead, W = EventKind::kWrite, A = EventKind::kAlloc;
  constexpr uint64_t kFdBytes = 0xfd0000000000;
  const uint64_t pr = kFdBytes + rec.At("pipe_r"), pw = kFdBytes + rec.At("pipe_w");
  const uint64_t sa = kFdBytes + rec.At("sock_a"), sb = kFdBytes + rec.At("sock_b");
  EXPECT_EQ(rec.Count(A, pr, 1), 2) << "pipe, close";
  EXPECT_EQ(rec.Count(A, pw, 1), 3) << "pipe, dup2, close";
  EXPECT_EQ(rec.Count(W, pr, 1), 1) << "close";
  EXPECT_EQ(rec.Count(W, pw, 1), 1) << "close";
  EXPECT_EQ(rec.Count(R, pr, 1), 1) << "read";
  EXPECT_EQ(rec.Count(R, pw, 1), 2) << "write, dup2 (its target)";
  // The creations' regions: what the engines write or read (event.h).
  std::vector<AllocRegion> regions;
  for (const Event& e : rec.events)
    if (e.kind == A && e.object == pw) regions.push_back(static_cast<AllocRegion>(e.mode));
  EXPECT_EQ(regions, (std::vector<AllocRegion>{AllocRegion::kFileDescriptor, AllocRegion::kFileDescriptorDup,
                                               AllocRegion::kFileDescriptorReset}));
  EXPECT_EQ(rec.Count(R, sa, 1), 2) << "send, dup2";
  EXPECT_EQ(rec.Count(R, sb, 1), 1) << "recv";
  EXPECT_EQ(rec.Count(R, rec.At("out_buf"), 12), 1) << "write's buffer";
  EXPECT_EQ(rec.Count(W, rec.At("in_buf"), 12), 1) << "read's buffer: the bytes returned";
  EXPECT_EQ(rec.Count(R, rec.At("sock_out"), 5), 1) << "send's buffer";
  EXPECT_EQ(rec.Count(W, rec.At("sock_in"), 5), 1) << "recv's buffer";

  // Two sync objects (pipe, socketpair), each signalled once before it is
  // waited on once, the wait before the buffer it filled.
  std::vector<uint64_t> signals, waits;
  size_t filled = 0;
  for (size_t i = 0; i < rec.events.size(); ++i) {
    const Event& e = rec.events[i];
    if (e.kind == EventKind::kSignal) signals.push_back(e.object);
    if (e.kind == EventKind::kWait) {
      waits.push_back(e.object);
      EXPECT_EQ(std::count(signals.begin(), signals.end(), e.object), 1) << "wait before its signal";
    }
    if (e.kind == W && e.object == rec.At("in_buf")) filled = waits.size();
  }
  ASSERT_EQ(signals.size(), 2u);
  EXPECT_EQ(waits, signals);
  EXPECT_NE(signals[0], signals[1]);
  EXPECT_EQ(signals[0] >> 40, 0xfeu);
  EXPECT_EQ(filled, 1u) << "read's buffer after the pipe's wait";
}

INSTANTIATE_TEST_SUITE_P(Builds, FdTest, ::testing::Values("gcc", "clang", "plain"));

// Synchronisation objects as memory (runtime/sync_object_access.h), linked with
// gcc and clang and preloaded into a plain build: init and destroy write each
// object's first byte, each use reads it: after a lock's acquire and a sem
// wait's wait, before an unlock's release, a signal, a post and a barrier's
// arrival.
class SyncObjectsTest : public ::testing::TestWithParam<std::string> {};

TEST_P(SyncObjectsTest, InitAndDestroyWriteUsesRead) {
  const Recording rec =
      GetParam() == "plain" ? RecordPreloaded("sync_objects_plain") : Record("sync_objects_" + GetParam());
  ASSERT_EQ(rec.result.exit_code, 0);
  EXPECT_EQ(rec.result.lost, 0u);
  const auto R = EventKind::kRead, W = EventKind::kWrite;
  for (const char* name : {"mutex", "rwlock", "spin", "cond", "barrier", "sem"})
    EXPECT_EQ(rec.Count(W, rec.At(name), 1), 2) << name << ": init, destroy";
  EXPECT_EQ(rec.Count(R, rec.At("mutex"), 1), 2) << "lock, unlock";
  EXPECT_EQ(rec.Count(R, rec.At("rwlock"), 1), 2) << "rdlock, unlock";
  EXPECT_EQ(rec.Count(R, rec.At("spin"), 1), 2) << "lock, unlock";
  EXPECT_EQ(rec.Count(R, rec.At("cond"), 1), 1) << "signal";
  EXPECT_EQ(rec.Count(R, rec.At("barrier"), 1), 1) << "wait, before its arrival only";
  EXPECT_EQ(rec.Count(R, rec.At("sem"), 1), 2) << "post, wait";

  // Each object's events in program order: what precedes and follows each read.
  // A lock's read comes before its acquire, a wait's before the wait (as
  // ThreadSanitizer's: the use is not ordered after the release it acquires).
  std::map<uint64_t, std::string> seq;
  for (const Event& e : rec.events) {
    std::string& s = seq[e.object];
    if (e.kind == R) s += 'r';
    if (e.kind == W) s += 'w';
    if (e.kind == EventKind::kAcquire) s += 'A';
    if (e.kind == EventKind::kRelease) s += 'R';
    if (e.kind == EventKind::kSignal) s += 'S';
    if (e.kind == EventKind::kWait) s += 'W';
    if (e.kind == EventKind::kBarrierArrive) s += 'a';
    if (e.kind == EventKind::kBarrierDepart) s += 'd';
  }
  EXPECT_EQ(seq[rec.At("mutex")], "wrArRw");
  EXPECT_EQ(seq[rec.At("rwlock")], "wrArRw");
  EXPECT_EQ(seq[rec.At("spin")], "wrArRw");
  EXPECT_EQ(seq[rec.At("cond")], "wSrw");  // the signal, then its use (interpose_pthread.cc)
  EXPECT_EQ(seq[rec.At("barrier")], "wradw");
  EXPECT_EQ(seq[rec.At("sem")], "wrSrWw");
}

INSTANTIATE_TEST_SUITE_P(Builds, SyncObjectsTest, ::testing::Values("gcc", "clang", "plain"));

// Memory mappings (runtime/interpose_mmap.cc), linked with gcc and clang and
// preloaded into a plain build: a mapping is an allocation of its pages, an
// munmap a free of the pages it unmaps, a MAP_FIXED mapping a free of what it
// replaces and an allocation, in program order.
class MappingsTest : public ::testing::TestWithParam<std::string> {};

TEST_P(MappingsTest, MapsAllocateUnmapsFree) {
  const Recording rec = GetParam() == "plain" ? RecordPreloaded("mappings_plain") : Record("mappings_" + GetParam());
  ASSERT_EQ(rec.result.exit_code, 0);
  const uint64_t first = rec.At("map"), second = first + 4096;
  std::vector<std::string> seen;
  for (const Event& e : rec.events) {
    if (e.kind != EventKind::kAlloc && e.kind != EventKind::kFree) continue;
    if (e.object != first && e.object != second) continue;
    seen.push_back(std::string(e.kind == EventKind::kAlloc ? "alloc " : "free ") +
                   (e.object == first ? "first " : "second ") + std::to_string(e.aux));
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"alloc first 8192", "free first 4096", "free second 4096",
                                            "alloc second 4096", "free second 4096"}));
}

INSTANTIATE_TEST_SUITE_P(Builds, MappingsTest, ::testing::Values("gcc", "clang", "plain"));

class ThreadsTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ThreadsTest, MutexCountsProgramOrderAndLockSemantics) {
  const Recording rec = Record("threads_" + GetParam(), {"mutex"});
  ASSERT_EQ(rec.result.exit_code, 0);
  EXPECT_EQ(rec.result.lost, 0u);
  const uint64_t lock = rec.At("lock"), counter = rec.At("counter");
  EXPECT_EQ(rec.Count(EventKind::kAcquire, lock), 2000);
  EXPECT_EQ(rec.Count(EventKind::kRelease, lock), 2000);
  EXPECT_EQ(rec.Count(EventKind::kWrite, counter, 8), 2000);
  EXPECT_EQ(rec.Count(EventKind::kFork), 4);
  EXPECT_EQ(rec.Count(EventKind::kJoin), 4);
  EXPECT_EQ(rec.Count(EventKind::kThreadBegin), 5);
  EXPECT_EQ(rec.Count(EventKind::kThreadEnd), 5);
  EXPECT_EQ(rec.info.threads.size(), 5u);
  ExpectLockSemantics(rec);
  ExpectThreadOrder(rec);
  // Program order: every worker does (acquire, read?, write, release) x 500, the
  // counter access always inside its own critical section.
  std::map<uint32_t, std::string> pattern;
  for (const Event& e : rec.events) {
    if (e.object == lock && e.kind == EventKind::kAcquire) pattern[e.tid] += 'A';
    if (e.object == lock && e.kind == EventKind::kRelease) pattern[e.tid] += 'R';
    if (e.object == counter && e.kind == EventKind::kWrite) pattern[e.tid] += 'w';
  }
  int workers = 0;
  for (const auto& [tid, p] : pattern) {
    if (p.empty()) continue;
    ++workers;
    std::string expected;
    for (int i = 0; i < 500; ++i) expected += "AwR";
    EXPECT_EQ(p, expected) << "thread " << tid;
  }
  EXPECT_EQ(workers, 4);
}

// A mutex keeps its order counter inside pthread_mutex_t (runtime/mutex_order.h).
// Instances that begin again at one address (freed and allocated, zeroed in
// place), a copy of a used one beside it, a failed unlock by a non-holder and
// more mutexes than there are mutex domains: every number arrives in its
// domain's order (no gap, no damage) and lock semantics hold.
TEST_P(ThreadsTest, MutexOrderAcrossInstancesCopiesAndFailedUnlocks) {
  const Recording rec = Record("threads_" + GetParam(), {"mutex_lives"});
  ASSERT_EQ(rec.result.exit_code, 0);
  EXPECT_EQ(rec.result.lost, 0u);
  EXPECT_EQ(rec.info.Meta("order_gaps"), "");
  ExpectLockSemantics(rec);
  ExpectThreadOrder(rec);
  // 2 threads x 200 per life; the first block's address may come back later.
  EXPECT_GE(rec.Count(EventKind::kAcquire, rec.At("first_life")), 400);
  EXPECT_EQ(rec.Count(EventKind::kAcquire, rec.At("zeroed")), 1200);
  EXPECT_EQ(rec.Count(EventKind::kRelease, rec.At("zeroed")), 1200);
  EXPECT_EQ(rec.Count(EventKind::kAcquire, rec.At("copy")), 400);
  EXPECT_EQ(rec.Count(EventKind::kAcquire, rec.At("errorcheck")), 1);
  EXPECT_EQ(rec.Count(EventKind::kRelease, rec.At("errorcheck")), 1);  // main's, not the intruder's
  EXPECT_EQ(rec.Count(EventKind::kAcquire, rec.At("many_first")), 2);
  EXPECT_EQ(rec.Count(EventKind::kRelease, rec.At("many_last")), 2);
}

TEST_P(ThreadsTest, EverySyncPrimitive) {
  const Recording rec = Record("threads_" + GetParam(), {"sync"});
  ASSERT_EQ(rec.result.exit_code, 0);
  const uint64_t rw = rec.At("rwlock");
  int shared_acq = 0, excl_acq = 0, shared_rel = 0, excl_rel = 0;
  for (const Event& e : rec.events) {
    if (e.object != rw) continue;
    const bool shared = e.mode == static_cast<uint8_t>(LockMode::kShared);
    if (e.kind == EventKind::kAcquire) (shared ? shared_acq : excl_acq)++;
    if (e.kind == EventKind::kRelease) (shared ? shared_rel : excl_rel)++;
  }
  EXPECT_EQ(shared_acq, 10);
  EXPECT_EQ(shared_rel, 10);
  EXPECT_EQ(excl_acq, 10);
  EXPECT_EQ(excl_rel, 10);
  EXPECT_EQ(rec.Count(EventKind::kSignal, rec.At("sem")), 5);
  EXPECT_EQ(rec.Count(EventKind::kWait, rec.At("sem")), 5);
  EXPECT_EQ(rec.Count(EventKind::kBarrierArrive, rec.At("barrier")), 6);
  EXPECT_EQ(rec.Count(EventKind::kBarrierDepart, rec.At("barrier")), 6);
  EXPECT_EQ(rec.Count(EventKind::kAcquire, rec.At("spin")), 7);
  EXPECT_EQ(rec.Count(EventKind::kRelease, rec.At("spin")), 7);
  EXPECT_EQ(rec.Count(EventKind::kSignal, rec.At("once")), 1) << "the once routine ran once";
  EXPECT_EQ(rec.Count(EventKind::kWait, rec.At("once")), 2) << "both pthread_once calls returned";
  EXPECT_EQ(rec.Count(EventKind::kSignal, rec.At("cond")), 1);
  const int waits = rec.Count(EventKind::kCondWaitBegin, rec.At("cond"));
  EXPECT_EQ(rec.Count(EventKind::kCondWaitEnd, rec.At("cond")), waits);
  for (const Event& e : rec.events) {
    if (e.kind == EventKind::kCondWaitBegin || e.kind == EventKind::kCondWaitEnd) {
      EXPECT_EQ(e.aux, rec.At("lock"));
    }
  }
  // Every barrier departure follows every arrival of its round.
  int arrivals = 0, departures = 0;
  for (const Event& e : rec.events) {
    if (e.kind == EventKind::kBarrierArrive) ++arrivals;
    if (e.kind == EventKind::kBarrierDepart) {
      ++departures;
      EXPECT_GE(arrivals, 2 * ((departures + 1) / 2)) << "departure before the round's arrivals";
    }
  }
  // The once routine's signal precedes the other thread's return from pthread_once.
  uint64_t signal_at = 0;
  for (const Event& e : rec.events)
    if (e.kind == EventKind::kSignal && e.object == rec.At("once")) signal_at = e.index;
  for (const Event& e : rec.events) {
    if (e.kind == EventKind::kWait && e.object == rec.At("once")) {
      EXPECT_GT(e.index, signal_at);
    }
  }
  ExpectLockSemantics(rec);
  ExpectThreadOrder(rec);
}

TEST_P(ThreadsTest, NothingLostWhenAThreadCallsExit) {
  const Recording rec = Record("threads_" + GetParam(), {"exit"});
  EXPECT_EQ(rec.result.exit_code, 3);
  EXPECT_EQ(rec.Count(EventKind::kWrite, rec.At("counter"), 8), 300);
  EXPECT_TRUE(rec.info.complete);
}

TEST_P(ThreadsTest, NothingLostAtPthreadExit) {
  const Recording rec = Record("threads_" + GetParam(), {"thread_exit"});
  EXPECT_EQ(rec.result.exit_code, 0);
  EXPECT_EQ(rec.Count(EventKind::kWrite, rec.At("per_thread0"), 8), 300);
  EXPECT_EQ(rec.Count(EventKind::kWrite, rec.At("per_thread1"), 8), 300);
  EXPECT_EQ(rec.Count(EventKind::kThreadEnd), 3);
  // The finished threads' stacks are freed: later reuse is a fresh variable.
  EXPECT_GE(rec.Count(EventKind::kFree), 2);
  ExpectThreadOrder(rec);
}

TEST_P(ThreadsTest, NothingLostOnSegfault) {
  const Recording rec = Record("threads_" + GetParam(), {"segv"});
  EXPECT_EQ(rec.result.term_signal, SIGSEGV);
  EXPECT_EQ(rec.Count(EventKind::kWrite, rec.At("counter"), 8), 300);
  EXPECT_EQ(rec.info.Meta("fatal_signal"), std::to_string(SIGSEGV));
}

TEST_P(ThreadsTest, NothingLostOnAbort) {
  const Recording rec = Record("threads_" + GetParam(), {"abort"});
  EXPECT_EQ(rec.result.term_signal, SIGABRT);
  EXPECT_EQ(rec.Count(EventKind::kWrite, rec.At("counter"), 8), 300);
}

TEST_P(ThreadsTest, OverflowIsCountedNotSilent) {
  recorder::InprocOptions tiny;
  tiny.ring_words = 64;
  tiny.wait_ns = 0;
  const int n = 2000000;
  const Recording rec = Record("threads_" + GetParam(), {"loop", std::to_string(n)}, tiny);
  ASSERT_EQ(rec.result.exit_code, 0);
  const int recorded = rec.Count(EventKind::kWrite, rec.At("counter"), 8);
  auto it = rec.info.counters.lost.find("runtime-ring");
  ASSERT_NE(it, rec.info.counters.lost.end()) << "no loss recorded with 64-word rings and no waiting";
  const uint64_t lost_writes = it->second[static_cast<int>(EventKind::kWrite)];
  EXPECT_GT(lost_writes, 0u);
  EXPECT_LT(recorded, n);
  EXPECT_GE(recorded + lost_writes, static_cast<uint64_t>(n));
  EXPECT_EQ(rec.result.lost, rec.info.counters.TotalLost());
}

TEST_P(ThreadsTest, BoundedWaitLosesNothingWithSmallRings) {
  recorder::InprocOptions small;
  small.ring_words = 1024;  // the producer waits for the drainer instead of dropping
  const int n = 200000;
  const Recording rec = Record("threads_" + GetParam(), {"loop", std::to_string(n)}, small);
  ASSERT_EQ(rec.result.exit_code, 0);
  EXPECT_EQ(rec.result.lost, 0u);
  EXPECT_EQ(rec.Count(EventKind::kWrite, rec.At("counter"), 8), n);
}

INSTANTIATE_TEST_SUITE_P(Compilers, ThreadsTest, ::testing::Values("gcc", "clang"));

class AllocTest : public ::testing::TestWithParam<std::string> {};

TEST_P(AllocTest, EveryAllocatorAndReuse) {
  const Recording rec = Record("alloc_" + GetParam());
  ASSERT_EQ(rec.result.exit_code, 0);
  for (const auto& [name, size] : std::vector<std::pair<std::string, int>>{{"malloc24", 24},
                                                                           {"calloc24", 24},
                                                                           {"realloc40", 40},
                                                                           {"posix_memalign48", 48},
                                                                           {"aligned_alloc256", 256},
                                                                           {"new8", 8},
                                                                           {"new_array32", 32},
                                                                           {"new_nothrow4", 4},
                                                                           {"new_aligned64", 64}}) {
    const uint64_t p = rec.At(name);
    uint64_t alloc_at = 0, free_at = 0;
    int allocs = 0, frees = 0;
    for (const Event& e : rec.events) {
      if (e.object != p) continue;
      if (e.kind == EventKind::kAlloc && e.aux == static_cast<uint64_t>(size) && !allocs++) alloc_at = e.index;
      if (e.kind == EventKind::kFree && alloc_at != 0 && !frees++) free_at = e.index;
    }
    EXPECT_GE(allocs, 1) << name;
    EXPECT_GE(frees, 1) << name;
    EXPECT_LT(alloc_at, free_at) << name;
  }
  // A block freed and handed out again: alloc, free, alloc in that order.
  if (rec.At("first100") == rec.At("second100")) {
    std::string order;
    for (const Event& e : rec.events)
      if (e.object == rec.At("first100") && (e.kind == EventKind::kAlloc || e.kind == EventKind::kFree))
        order += e.kind == EventKind::kAlloc ? 'a' : 'f';
    EXPECT_EQ(order.substr(0, 4), "afaf");
  } else {
    GTEST_SKIP() << "malloc did not reuse the freed block; reuse order not checked";
  }
  // std::thread creates its thread from inside libstdc++: still seen as a fork.
  EXPECT_EQ(rec.Count(EventKind::kFork), 1);
  EXPECT_EQ(rec.Count(EventKind::kJoin), 1);
}

INSTANTIATE_TEST_SUITE_P(Compilers, AllocTest, ::testing::Values("gcc", "clang"));

// gcc and clang builds of one program give the same events per kind on the
// program's objects. (Not in total: clang elides a read followed by a write to
// the same address in one basic block, and the compilers inline differently.)
TEST(CompilersTest, GccAndClangGiveTheSameEventsPerKind) {
  for (const std::string mode : {"mutex", "sync"}) {
    const Recording g = Record("threads_gcc", {mode});
    const Recording c = Record("threads_clang", {mode});
    // (Not cond waits: whether the worker had to wait depends on the schedule.)
    for (EventKind k : {EventKind::kAcquire, EventKind::kRelease, EventKind::kSignal, EventKind::kWait,
                        EventKind::kBarrierArrive, EventKind::kBarrierDepart, EventKind::kFork, EventKind::kJoin,
                        EventKind::kThreadBegin, EventKind::kThreadEnd})
      EXPECT_EQ(g.Count(k), c.Count(k)) << mode << ": " << EventKindName(k);
    EXPECT_EQ(g.Count(EventKind::kWrite, g.At("counter")), c.Count(EventKind::kWrite, c.At("counter"))) << mode;
  }
  const Recording g = Record("accesses_gcc");
  const Recording c = Record("accesses_clang");
  for (const auto& [name, addr] : c.addr)
    for (EventKind k :
         {EventKind::kRead, EventKind::kWrite, EventKind::kAtomicLoad, EventKind::kAtomicStore, EventKind::kAtomicRmw})
      EXPECT_EQ(g.Count(k, g.At(name)), c.Count(k, addr)) << name << ": " << EventKindName(k);
}

// The same deterministic program recorded by the runtime (inproc) and by the
// eBPF probes gives the same synchronisation events on the program's objects.
TEST(RecordModesTest, InprocAndEbpfGiveTheSameSyncEvents) {
  if (!recorder::CheckRecordPrivileges().ok()) GTEST_SKIP() << "SKIPPED LOUDLY: eBPF recording needs root";
  for (const std::string mode : {"mutex", "sync"}) {
    const Recording in = Record("threads_gcc", {mode});
    const Recording bpf = Record("threads_gcc", {mode}, recorder::InprocOptions(), /*ebpf=*/true);
    ASSERT_EQ(in.result.exit_code, 0);
    ASSERT_EQ(bpf.result.exit_code, 0);
    for (const std::string object : {"lock", "rwlock", "sem", "barrier", "spin"})
      for (EventKind k : {EventKind::kAcquire, EventKind::kRelease, EventKind::kSignal, EventKind::kWait,
                          EventKind::kBarrierArrive, EventKind::kBarrierDepart})
        EXPECT_EQ(in.Count(k, in.At(object)), bpf.Count(k, bpf.At(object)))
            << mode << ": " << object << " " << EventKindName(k);
    for (EventKind k : {EventKind::kFork, EventKind::kJoin, EventKind::kThreadBegin, EventKind::kThreadEnd})
      EXPECT_EQ(in.Count(k), bpf.Count(k)) << mode << ": " << EventKindName(k);
  }
}

// Per thread (in creation order), the sync events and accesses in program
// order, each as "kind object" with objects renamed by first appearance in the
// thread (the cross-thread interleaving may differ between runs): what two recordings of a deterministic program must
// agree on. Sync events count only on the program's own objects (its manifest): the probes also see libc's internal
// locks (dlsym's, when the runtime looks up a libc function on first use), which the runtime's interposition cannot
// see.
std::vector<std::vector<std::string>> SyncAndAccessSequences(const Recording& rec) {
  std::set<uint64_t> program_objects;
  for (const auto& [name, addr] : rec.addr) program_objects.insert(addr);
  // A synchronisation object's byte, written by its init and destroy and read by
  // its own calls, is the runtime's in-process model (sync_object_access.h),
  // which --sync=ebpf does not record.
  std::set<uint64_t> sync_objects;
  for (const Event& e : rec.events)
    if (IsLockEvent(e.kind) || e.kind == EventKind::kSignal || e.kind == EventKind::kWait ||
        e.kind == EventKind::kBarrierArrive)
      sync_objects.insert(e.object);
  std::map<uint32_t, std::map<uint64_t, std::string>> names;  // per thread
  std::map<uint32_t, std::vector<std::string>> by_tid;
  for (const Event& e : rec.events) {
    if (IsAccess(e.kind) && e.aux == 1 && sync_objects.count(e.object)) continue;
    const bool access = IsAccess(e.kind) || IsAtomicAccess(e.kind);
    const bool sync = IsLockEvent(e.kind) || IsThreadEvent(e.kind) || e.kind == EventKind::kSignal ||
                      e.kind == EventKind::kWait || e.kind == EventKind::kBarrierArrive ||
                      e.kind == EventKind::kBarrierDepart || e.kind == EventKind::kThreadBegin ||
                      e.kind == EventKind::kThreadEnd;
    if (!access && !sync) continue;
    if (sync && (IsLockEvent(e.kind) || e.kind == EventKind::kSignal || e.kind == EventKind::kWait) &&
        !program_objects.count(e.object))
      continue;
    std::string item(EventKindName(e.kind));
    if (!IsThreadEvent(e.kind) && e.kind != EventKind::kThreadBegin && e.kind != EventKind::kThreadEnd) {
      auto it = names[e.tid].emplace(e.object, "o" + std::to_string(names[e.tid].size())).first;
      item += " " + it->second;
    }
    by_tid[e.tid].push_back(item);
  }
  std::vector<std::vector<std::string>> out;
  for (auto& [tid, seq] : by_tid) out.push_back(std::move(seq));
  return out;
}

std::string Join(const std::vector<std::string>& v, size_t from, size_t n) {
  std::string s;
  for (size_t i = from; i < v.size() && i < from + n; ++i) s += "  " + v[i] + "\n";
  return s;
}

// The point of stamping: with --sync=ebpf each thread's accesses sit exactly
// where the runtime puts them itself (inproc), between the same sync events.
// stamped.c makes the same calls per thread whatever the schedule, so the two
// recordings agree event for event.
TEST(RecordModesTest, EbpfPlacesAccessesExactlyAmongSyncEvents) {
  if (!recorder::CheckRecordPrivileges().ok()) GTEST_SKIP() << "SKIPPED LOUDLY: eBPF recording needs root";
  const Recording in = Record("stamped_gcc");
  const Recording bpf = Record("stamped_gcc", {}, recorder::InprocOptions(), /*ebpf=*/true);
  ASSERT_EQ(in.result.exit_code, 0);
  ASSERT_EQ(bpf.result.exit_code, 0);
  EXPECT_EQ(in.info.counters.TotalLost(), 0u);
  EXPECT_EQ(bpf.info.counters.TotalLost(), 0u);
  const auto a = SyncAndAccessSequences(in), b = SyncAndAccessSequences(bpf);
  ASSERT_EQ(a.size(), 3u);
  ASSERT_EQ(a.size(), b.size());
  for (size_t t = 0; t < a.size(); ++t) {
    size_t i = 0;
    while (i < a[t].size() && i < b[t].size() && a[t][i] == b[t][i]) ++i;
    EXPECT_TRUE(i == a[t].size() && i == b[t].size())
        << "thread " << t << " differs at its event " << i << " (inproc " << a[t].size() << " events, ebpf "
        << b[t].size() << ")\ninproc:\n"
        << Join(a[t], i > 3 ? i - 3 : 0, 8) << "ebpf:\n"
        << Join(b[t], i > 3 ? i - 3 : 0, 8);
  }
  // And the accesses really are there: 20 increments of total by the counter thread.
  int total_writes = 0;
  for (const Event& e : bpf.events) total_writes += e.kind == EventKind::kWrite && e.tid != 0;
  EXPECT_GT(total_writes, 20);
  ExpectLockSemantics(bpf);
  ExpectThreadOrder(bpf);
}

TEST(RecordInprocTest, ProgramWithoutTheRuntimeRunsAndRecordsNothing) {
  const Recording rec = Record("threads_plain", {"mutex"});
  EXPECT_EQ(rec.result.exit_code, 0);
  EXPECT_FALSE(rec.result.runtime_seen);
  EXPECT_TRUE(rec.events.empty());
  EXPECT_FALSE(recorder::CarriesRuntime(kPrograms + "/threads_plain"));
  EXPECT_TRUE(recorder::CarriesRuntime(kPrograms + "/threads_gcc"));
  EXPECT_TRUE(recorder::CarriesRuntime(kPrograms + "/alloc_clang"));
}

TEST(RecordInprocTest, MissingProgramIsAClearError) {
  recorder::RecordResult result;
  Status s = RecordInproc({"/nonexistent/program"}, recorder::InprocOptions(), TempPath("missing.seer"), &result);
  EXPECT_EQ(s.code(), Status::Code::kNotFound);
  EXPECT_NE(s.message().find("/nonexistent/program"), std::string::npos) << s.message();
  recorder::InprocOptions bad;
  bad.ring_words = 1000;
  s = RecordInproc({"/bin/true"}, bad, TempPath("bad.seer"), &result);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
}

// The policies of this process's threads but the caller's, sampled while
// RecordInproc runs a program that takes a lock 2000 times and then sleeps
// half a second (so that the writer has events while it runs): how many were SCHED_IDLE at most at once, and
// whether the caller's threads (this one and the watcher) ever left SCHED_OTHER.
struct PolicySamples {
  int most_idle = 0;
  bool caller_changed = false;
  bool idle_after = false;
};
PolicySamples SamplePolicies(const recorder::InprocOptions& options) {
  PolicySamples out;
  std::atomic<bool> done{false};
  const pid_t caller = gettid();
  std::thread watcher([&] {
    const pid_t me = gettid();
    while (!done.load()) {
      int idle = 0;
      for (const auto& entry : std::filesystem::directory_iterator("/proc/self/task")) {
        const pid_t tid = static_cast<pid_t>(std::stol(entry.path().filename().string()));
        const int policy = sched_getscheduler(tid);
        if (tid == me || tid == caller)
          out.caller_changed |= policy != SCHED_OTHER;
        else
          idle += policy == SCHED_IDLE;
      }
      out.most_idle = std::max(out.most_idle, idle);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  });
  recorder::RecordResult result;
  const std::string manifest = TempPath("policy.manifest");
  Status s = RecordInproc({kPrograms + "/threads_gcc", manifest, "sleep"}, options, TempPath("policy.seer"), &result);
  std::remove(manifest.c_str());
  done.store(true);
  watcher.join();
  EXPECT_TRUE(s.ok()) << s.ToString();
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/task"))
    out.idle_after |= sched_getscheduler(static_cast<pid_t>(std::stol(entry.path().filename().string()))) == SCHED_IDLE;
  std::remove(TempPath("policy.seer").c_str());
  return out;
}

TEST(RecordInprocTest, MergingAndEncodingRunAsIdleThreadsWhileTheTargetRuns) {
  // The merger and the writer's encoder threads it starts: idle while the
  // target runs, so that a target using every core is not slowed by them; the
  // caller's threads untouched.
  PolicySamples idle = SamplePolicies(recorder::InprocOptions());
  EXPECT_EQ(idle.most_idle, 1 + recorder::InprocOptions().writer.encode_threads);
  EXPECT_GE(recorder::InprocOptions().writer.encode_threads, 1);
  EXPECT_FALSE(idle.caller_changed);
  EXPECT_FALSE(idle.idle_after);
  recorder::InprocOptions normal;
  normal.merge_when_idle = false;
  PolicySamples busy = SamplePolicies(normal);
  EXPECT_EQ(busy.most_idle, 0);
  EXPECT_FALSE(busy.caller_changed);
}

// The library's lifecycle as a long-running front end drives it: Start, Poll
// with live counters, Stop (SIGTERM passed on to the launched target), Finish.
TEST(RecordingApiTest, PollCountsLiveAndStopEndsTheLaunchedTarget) {
  const std::string manifest = TempPath("api.manifest");
  const std::string trace = TempPath("api.seer");
  recorder::RecordOptions o;
  o.mode = recorder::RecordMode::kInproc;
  o.command = {kPrograms + "/threads_gcc", manifest, "until_signal"};
  o.output = trace;
  std::unique_ptr<recorder::Recording> recording;
  Status s = recorder::Recording::Start(o, &recording);
  ASSERT_TRUE(s.ok()) << s.ToString();
  bool running = true;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  uint64_t seen = 0;
  while (running && seen < 5000 && std::chrono::steady_clock::now() < deadline) {
    s = recording->Poll(&running);
    ASSERT_TRUE(s.ok()) << s.ToString();
    const uint64_t now = recording->counters().events;
    EXPECT_GE(now, seen) << "the event count went backwards";
    seen = now;
  }
  EXPECT_TRUE(running) << "the target ended by itself";
  EXPECT_GE(seen, 5000u) << "no live event count within 30 s";
  EXPECT_GE(recording->counters().threads, 1u);
  recording->Stop();
  while (running && std::chrono::steady_clock::now() < deadline) ASSERT_TRUE(recording->Poll(&running).ok());
  EXPECT_FALSE(running) << "Stop did not end the target";
  recorder::RecordResult result;
  s = recording->Finish(&result);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(result.mode, recorder::RecordMode::kInproc);
  EXPECT_EQ(result.term_signal, SIGTERM);
  EXPECT_EQ(result.ExitStatus(), 128 + SIGTERM);
  EXPECT_GE(result.events, seen);
  std::vector<Event> events;
  TraceInfo info;
  s = test::ReadTrace(trace, &events, &info);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_TRUE(info.complete);
  EXPECT_EQ(events.size(), result.events);
  std::remove(manifest.c_str());
  std::remove(trace.c_str());
}

// Hold times cost two clock reads per lock pair: only a recorder that asks
// (the service) gets them in the releases' aux; `seer record` does not.
TEST(RecordInprocTest, ReleasesCarryHoldTimesOnlyWhenAsked) {
  for (const bool asked : {false, true}) {
    SCOPED_TRACE(asked ? "asked" : "not asked");
    recorder::InprocOptions options;
    options.lock_hold_times = asked;
    const Recording rec = Record("threads_gcc", {"mutex"}, options);
    const uint64_t lock = rec.At("lock");
    int releases = 0, timed = 0;
    for (const Event& e : rec.events) {
      if (e.kind != EventKind::kRelease || e.object != lock) continue;
      ++releases;
      timed += e.aux != 0;
    }
    EXPECT_EQ(releases, 2000);
    EXPECT_EQ(timed, asked ? releases : 0);
  }
}

TEST(RecordInprocTest, TraceCarriesMetadataThreadsAndModules) {
  const Recording rec = Record("threads_gcc", {"mutex"});
  EXPECT_EQ(rec.info.Meta(meta::kSource), "record");
  EXPECT_EQ(rec.info.Meta(meta::kPcKind), "address");
  EXPECT_NE(rec.info.Meta(meta::kClock).find("inproc"), std::string::npos);
  EXPECT_TRUE(rec.info.complete);
  bool found_program = false;
  for (const ModuleInfo& m : rec.info.modules)
    if (m.path.find("threads_gcc") != std::string::npos) {
      found_program = true;
      EXPECT_FALSE(m.build_id.empty());
    }
  EXPECT_TRUE(found_program) << "the program itself is not in the module map";
  for (const ThreadInfo& t : rec.info.threads) {
    EXPECT_GT(t.os_tid, 0);
    if (t.tid != 0) {
      EXPECT_EQ(t.parent, 0);
    }
  }
}

}  // namespace
}  // namespace seer
