#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <set>

#include "seer/trace.h"
#include "store/coding.h"
#include "store/distinct_counter.h"
#include "store/run_appender.h"
#include "store/tables.h"
#include "store/trace_clock.h"
#include "tests/support/temp_dir.h"
#include "tests/support/trace_builder.h"
#include "tests/support/trace_chunks.h"
#include "tests/support/trace_io.h"

namespace seer::store {
namespace {

namespace fs = std::filesystem;

class TraceStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::MakeTempDir(std::string("seer-store-test-") +
                             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    ASSERT_FALSE(dir_.empty()) << "cannot make a temporary directory";
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

// Accesses of 8 bytes, the other kinds with aux 0.
Event SizedEvent(uint32_t tid, EventKind kind, uint64_t object, uint64_t pc) {
  return test::MakeEvent(tid, kind, object, pc, IsAccess(kind) ? 8 : 0);
}

// Writes `n` events in chunks of `per_chunk`.
Status WriteTrace(const std::string& path, uint64_t n, uint32_t per_chunk, bool close = true) {
  TraceWriterOptions options;
  options.events_per_chunk = per_chunk;
  std::unique_ptr<TraceWriter> w;
  Status s = TraceWriter::Create(path, options, &w);
  if (!s.ok()) return s;
  w->SetMeta(meta::kSource, "test");
  w->AddThread({0, 100, -1, "main"});
  w->AddThread({1, 101, 0, "worker"});
  w->AddModule({"/bin/prog", "abcd", 0x400000, 0x1000, 0});
  w->SetName(Namespace::kVariable, 7, "counter");
  for (uint64_t i = 0; i < n; ++i) {
    EventKind kind = (i % 3 == 0) ? EventKind::kWrite : EventKind::kRead;
    s = w->Append(SizedEvent(static_cast<uint32_t>(i % 2), kind, 0x1000 + (i % 16) * 8, 0x400100 + i % 5));
    if (!s.ok()) return s;
  }
  return close ? w->Close() : w->Flush();
}

TEST_F(TraceStoreTest, RoundTripsEventsAndTables) {
  const std::string path = Path("t.seer");
  ASSERT_TRUE(WriteTrace(path, 10000, 1000).ok());
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u) << "trace files are private";
  EXPECT_FALSE(fs::exists(path + "-lock")) << "a trace is one file";

  std::vector<Event> events;
  TraceInfo info;
  ASSERT_TRUE(test::ReadTrace(path, &events, &info).ok());
  ASSERT_EQ(events.size(), 10000u);
  for (uint64_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(events[i].index, i);
    EXPECT_EQ(events[i].tid, i % 2);
    EXPECT_EQ(events[i].object, 0x1000 + (i % 16) * 8);
  }
  EXPECT_TRUE(info.complete);
  EXPECT_EQ(info.format_version, kTraceFormatVersion);
  EXPECT_EQ(info.chunks, 10u);
  EXPECT_EQ(info.Meta(meta::kSource), "test");
  ASSERT_EQ(info.threads.size(), 2u);
  EXPECT_EQ(info.threads[1].name, "worker");
  EXPECT_EQ(info.threads[1].parent, 0);
  ASSERT_EQ(info.modules.size(), 1u);
  EXPECT_EQ(info.modules[0].build_id, "abcd");
  EXPECT_EQ(info.counters.events, 10000u);
  EXPECT_EQ(info.counters.by_kind[static_cast<int>(EventKind::kWrite)], 3334u);
  EXPECT_EQ(info.counters.distinct_variables, 16u);
  EXPECT_EQ(info.counters.distinct_locations, 5u);
  EXPECT_EQ(info.counters.distinct_threads, 2u);

  std::unique_ptr<TraceReader> r;
  ASSERT_TRUE(TraceReader::Open(path, &r).ok());
  EXPECT_EQ(r->Name(Namespace::kVariable, 7), "counter");
  EXPECT_EQ(r->Name(Namespace::kLock, 7), "");
}

// The writer's distinct counts take shortcuts (caches of recent objects, pcs
// and locks); they must still equal exact counts, whatever mix of kinds shares
// a pc, and with more locks (an array of mutexes, 40 bytes apart) than the
// lock cache holds.
// The same events written with and without the writer's distinct counts: the
// first trace holds the exact counts, the second none and says so
// (meta::kDistinctNotCounted), and DistinctCounter (what `seer info` counts
// them with then) finds the exact counts in its events.
TEST_F(TraceStoreTest, DistinctCountsAreExact) {
  const std::string path = Path("distinct.seer");
  const std::string uncounted_path = Path("uncounted.seer");
  std::unique_ptr<TraceWriter> w, uncounted;
  ASSERT_TRUE(TraceWriter::Create(path, {}, &w).ok());
  TraceWriterOptions no_distinct;
  no_distinct.count_distinct = false;
  ASSERT_TRUE(TraceWriter::Create(uncounted_path, no_distinct, &uncounted).ok());
  std::mt19937_64 rng(11);
  std::set<uint64_t> variables, locations, locks;
  for (int i = 0; i < 200000; ++i) {
    const EventKind kinds[] = {EventKind::kRead,    EventKind::kWrite,   EventKind::kAtomicRmw,
                               EventKind::kAcquire, EventKind::kRelease, EventKind::kAlloc};
    EventKind kind = kinds[rng() % 6];
    Event e = SizedEvent(rng() % 3, kind, rng() % 700, rng() % 300);  // pcs shared across kinds
    if (IsAccess(kind) || IsAtomicAccess(kind)) {
      variables.insert(e.object);
      locations.insert(e.pc);
    } else if (kind == EventKind::kAcquire || kind == EventKind::kRelease) {
      // Mostly a few hot locks, now and then one of 6,000.
      e.object = rng() % 4 != 0 ? 0x5000 + rng() % 8 * 40 : 0x100000 + rng() % 6000 * 40;
      locks.insert(e.object);
    }
    ASSERT_TRUE(w->Append(e).ok());
    ASSERT_TRUE(uncounted->Append(e).ok());
  }
  ASSERT_TRUE(w->Close().ok());
  ASSERT_TRUE(uncounted->Close().ok());
  std::vector<Event> events;
  TraceInfo info;
  ASSERT_TRUE(test::ReadTrace(path, &events, &info).ok());
  EXPECT_EQ(info.counters.distinct_variables, variables.size());
  EXPECT_EQ(info.counters.distinct_locations, locations.size());
  EXPECT_EQ(info.counters.distinct_locks, locks.size());
  EXPECT_EQ(info.Meta(meta::kDistinctNotCounted), "");

  ASSERT_TRUE(test::ReadTrace(uncounted_path, &events, &info).ok());
  EXPECT_EQ(info.counters.distinct_variables, 0u);
  EXPECT_EQ(info.counters.distinct_locations, 0u);
  EXPECT_EQ(info.counters.distinct_locks, 0u);
  EXPECT_EQ(info.counters.distinct_threads, 3u) << "threads are counted either way";
  EXPECT_EQ(info.Meta(meta::kDistinctNotCounted), "1");
  DistinctCounter counter;
  for (const Event& e : events) counter.Count(e);
  EXPECT_EQ(counter.variables(), variables.size());
  EXPECT_EQ(counter.locations(), locations.size());
  EXPECT_EQ(counter.locks(), locks.size());
}

// A writer of 1000 events per chunk with `threads` encoder threads, and its
// interface for runs.
Status CreateRunWriter(const std::string& path, int threads, std::unique_ptr<TraceWriter>* w, RunAppender** runs) {
  TraceWriterOptions options;
  options.events_per_chunk = 1000;
  options.encode_threads = threads;
  Status s = TraceWriter::Create(path, options, w);
  if (!s.ok()) return s;
  *runs = dynamic_cast<RunAppender*>(w->get());
  if (*runs == nullptr) return Status::Internal("the LMDB writer takes runs");
  return Status::Ok();
}

// With encoder threads the file holds what the writer alone would write:
// the same events in the same chunks, the same tables, counters and clock,
// whatever the table calls and flushes between the events.
TEST_F(TraceStoreTest, EncoderThreadsWriteWhatOneThreadWrites) {
  auto write = [&](const std::string& path, int threads) {
    std::unique_ptr<TraceWriter> w;
    RunAppender* runs = nullptr;
    Status s = CreateRunWriter(path, threads, &w, &runs);
    if (!s.ok()) return s;
    std::mt19937_64 rng(5);
    std::vector<Event> run;
    uint64_t appended = 0;
    for (int round = 0; round < 400; ++round) {
      run.clear();
      const size_t n = rng() % 2500;  // runs that span one chunk boundary, or two
      for (size_t i = 0; i < n; ++i) {
        const EventKind kinds[] = {EventKind::kRead, EventKind::kWrite, EventKind::kAcquire, EventKind::kRelease};
        run.push_back(SizedEvent(rng() % 4, kinds[rng() % 4], 0x1000 + rng() % 4096, 0x400000 + rng() % 64));
      }
      if ((s = runs->AppendRun(run.data(), run.size())); !s.ok()) return s;
      appended += n;
      w->AddClockSample(appended * 1'000'000);  // one per round, a millisecond apart
      if (round % 7 == 0)
        w->AddThread({static_cast<uint32_t>(round % 4), 100 + round, -1, "t" + std::to_string(round)});
      if (round % 11 == 0) w->SetName(Namespace::kLock, round, "lock" + std::to_string(round));
      if (round % 13 == 0) w->AddLost("test", EventKind::kRead, round);
      if (round % 50 == 0) {
        if ((s = w->Flush()); !s.ok()) return s;
      }
    }
    return w->Close();
  };
  const std::string one = Path("one.seer");
  ASSERT_TRUE(write(one, 0).ok());
  std::vector<Event> expected;
  TraceInfo expected_info;
  ASSERT_TRUE(test::ReadTrace(one, &expected, &expected_info).ok());
  ASSERT_GT(expected.size(), 100000u);
  for (int threads : {1, 2, 3}) {
    SCOPED_TRACE("encode_threads " + std::to_string(threads));
    const std::string path = Path("threads" + std::to_string(threads) + ".seer");
    ASSERT_TRUE(write(path, threads).ok());
    std::vector<Event> events;
    TraceInfo info;
    Status s = test::ReadTrace(path, &events, &info);
    ASSERT_TRUE(s.ok()) << s.ToString();
    ASSERT_EQ(events.size(), expected.size());
    for (size_t i = 0; i < events.size(); ++i) {
      ASSERT_EQ(events[i].index, expected[i].index);
      ASSERT_EQ(events[i].tid, expected[i].tid) << i;
      ASSERT_EQ(events[i].kind, expected[i].kind) << i;
      ASSERT_EQ(events[i].object, expected[i].object) << i;
      ASSERT_EQ(events[i].pc, expected[i].pc) << i;
    }
    EXPECT_EQ(info.chunks, expected_info.chunks);
    EXPECT_EQ(EncodeCounters(info.counters), EncodeCounters(expected_info.counters));
    ASSERT_EQ(info.threads.size(), expected_info.threads.size());
    for (size_t i = 0; i < info.threads.size(); ++i) EXPECT_EQ(info.threads[i].name, expected_info.threads[i].name);
    ASSERT_EQ(info.clock.size(), expected_info.clock.size());
    for (size_t i = 0; i < info.clock.size(); ++i) {
      EXPECT_EQ(info.clock[i].events, expected_info.clock[i].events);
      EXPECT_EQ(info.clock[i].ns, expected_info.clock[i].ns);
    }
    EXPECT_EQ(info.meta, expected_info.meta);
  }
}

// Repeats (RunAppender::AppendRepeat): a writer given the repeated runs as
// repeats writes the same chunks, byte for byte, and the same counters as one
// given them as plain runs; with and without encoder threads, runs cut by the
// end of a chunk, threads interleaving, runs that differ slightly; with more
// threads' runs in a chunk than the writer's look-back for a run it already
// holds (HoldRun) too.
TEST_F(TraceStoreTest, RepeatsWriteWhatRunsWrite) {
  auto write = [&](const std::string& path, int threads, uint32_t trace_threads, bool repeats) {
    std::unique_ptr<TraceWriter> w;
    RunAppender* runs = nullptr;
    Status s = CreateRunWriter(path, threads, &w, &runs);
    if (!s.ok()) return s;
    std::mt19937_64 rng(21);
    std::vector<std::vector<Event>> last(trace_threads);
    std::vector<bool> given(trace_threads, false);
    std::vector<std::shared_ptr<const RepeatedRun>> shared(trace_threads);  // one per body, as the merger makes them
    for (int round = 0; round < 3000; ++round) {
      const uint32_t tid = static_cast<uint32_t>(rng() % trace_threads);
      std::vector<Event>& body = last[tid];
      const int change = body.empty() ? 0 : static_cast<int>(rng() % 10);
      if (change == 0) {  // a new body
        body.clear();
        const size_t n = 1 + rng() % 400;
        const uint64_t base = 0x10000 * (1 + tid) + 0x1000 * (rng() % 8);
        for (size_t i = 0; i < n; ++i)
          body.push_back(SizedEvent(tid, i % 2 ? EventKind::kWrite : EventKind::kRead, base + 8 * (i % 64),
                                    0x400000 + 4 * (i % 3)));
        given[tid] = false;
      } else if (change == 1) {  // one address moves
        body[rng() % body.size()].object += 8;
        given[tid] = false;
      } else if (change == 2) {  // one shorter
        if (body.size() > 1) body.pop_back();
        given[tid] = false;
      }
      const Event acquire = SizedEvent(tid, EventKind::kAcquire, 0x9000 + tid, 0x500000);
      const Event release = SizedEvent(tid, EventKind::kRelease, 0x9000 + tid, 0x500004);
      if ((s = runs->AppendRun(&acquire, 1)); !s.ok()) return s;
      if (!given[tid]) shared[tid] = nullptr;
      if (repeats && given[tid] && shared[tid] == nullptr) {
        auto run = std::make_shared<RepeatedRun>();
        run->events = body;
        for (const Event& e : body) ++run->by_kind[static_cast<int>(e.kind)];
        shared[tid] = std::move(run);
      }
      s = repeats && given[tid] ? runs->AppendRepeat(shared[tid]) : runs->AppendRun(body.data(), body.size());
      if (!s.ok()) return s;
      given[tid] = true;
      if ((s = runs->AppendRun(&release, 1)); !s.ok()) return s;
      if (round % 500 == 0) {
        if ((s = w->Flush()); !s.ok()) return s;
      }
    }
    return w->Close();
  };
  for (const auto& [threads, trace_threads] : {std::pair{0, 3u}, std::pair{2, 3u}, std::pair{2, 12u}}) {
    const std::string name = std::to_string(threads) + "_" + std::to_string(trace_threads);
    SCOPED_TRACE("encode_threads " + std::to_string(threads) + ", threads " + std::to_string(trace_threads));
    const std::string plain = Path("plain" + name + ".seer");
    const std::string repeated = Path("repeated" + name + ".seer");
    ASSERT_TRUE(write(plain, threads, trace_threads, false).ok());
    ASSERT_TRUE(write(repeated, threads, trace_threads, true).ok());
    std::vector<std::string> expected_chunks, chunks;
    ASSERT_TRUE(test::ReadRawChunks(plain, &expected_chunks).ok());
    ASSERT_TRUE(test::ReadRawChunks(repeated, &chunks).ok());
    ASSERT_GT(expected_chunks.size(), 100u);
    ASSERT_EQ(chunks.size(), expected_chunks.size());
    for (size_t i = 0; i < chunks.size(); ++i) ASSERT_TRUE(chunks[i] == expected_chunks[i]) << "chunk " << i;
    std::vector<Event> expected_events, events;
    TraceInfo expected_info, info;
    ASSERT_TRUE(test::ReadTrace(plain, &expected_events, &expected_info).ok());
    ASSERT_TRUE(test::ReadTrace(repeated, &events, &info).ok());
    EXPECT_EQ(events.size(), expected_events.size());
    EXPECT_EQ(EncodeCounters(info.counters), EncodeCounters(expected_info.counters));
    EXPECT_EQ(info.counters.events, events.size());
  }
}

// Clock samples: kept at most one per millisecond (the newest of a thinned run is
// written at close), none for a sample that adds no event, and read back in order.
TEST_F(TraceStoreTest, ClockSamplesRoundTripThinnedToAMillisecond) {
  const std::string path = Path("clock.seer");
  std::unique_ptr<TraceWriter> w;
  ASSERT_TRUE(TraceWriter::Create(path, {}, &w).ok());
  w->AddClockSample(500'000);  // no event yet: says nothing
  auto append = [&](int n) {
    for (int i = 0; i < n; ++i) ASSERT_TRUE(w->Append(SizedEvent(0, EventKind::kRead, 0x10, 0x20)).ok());
  };
  append(10);
  w->AddClockSample(5'000'000);  // kept: (10, 5 ms)
  append(10);
  w->AddClockSample(5'400'000);  // within 1 ms of the last kept: thinned
  w->AddClockSample(5'900'000);  // no new event: the earlier (20, 5.4 ms) stays the candidate
  append(10);
  w->AddClockSample(6'000'000);  // kept: (30, 6 ms); the thinned one is dropped
  append(5);
  w->AddClockSample(6'500'000);  // thinned, but the last: written at close
  ASSERT_TRUE(w->Close().ok());

  std::unique_ptr<TraceReader> r;
  Status s = TraceReader::Open(path, &r);
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::vector<std::pair<uint64_t, uint64_t>> got;
  for (const ClockSample& c : r->info().clock) got.emplace_back(c.events, c.ns);
  EXPECT_EQ(got, (std::vector<std::pair<uint64_t, uint64_t>>{{10, 5'000'000}, {30, 6'000'000}, {35, 6'500'000}}));

  // A trace without samples reads with none.
  const std::string plain = Path("plain.seer");
  ASSERT_TRUE(WriteTrace(plain, 100, 50).ok());
  ASSERT_TRUE(TraceReader::Open(plain, &r).ok());
  EXPECT_TRUE(r->info().clock.empty());
}

TEST(TraceClockTest, InterpolatesBetweenSamplesAndFindsWindowStarts) {
  const TraceClock none({});
  EXPECT_FALSE(none.has_times());
  EXPECT_EQ(none.TimeNs(5), 0);
  const TraceClock clock({{2, 1000}, {4, 4000}, {7, 7000}});
  ASSERT_TRUE(clock.has_times());
  const double expected[] = {0, 500, 1000, 2500, 4000, 5000, 6000, 7000, 7000};
  for (uint64_t i = 0; i < std::size(expected); ++i) EXPECT_DOUBLE_EQ(clock.TimeNs(i), expected[i]) << "event " << i;
  EXPECT_EQ(clock.FirstEventAt(0), 0u);
  EXPECT_EQ(clock.FirstEventAt(500), 1u);
  EXPECT_EQ(clock.FirstEventAt(501), 2u);
  EXPECT_EQ(clock.FirstEventAt(2000), 3u);
  EXPECT_EQ(clock.FirstEventAt(4000), 4u);
  EXPECT_EQ(clock.FirstEventAt(6500), 7u);
  EXPECT_EQ(clock.FirstEventAt(1e12), 7u);
  EXPECT_EQ(clock.span_ns(), 7000u);
  // Monotone over many events whatever the sample spacing.
  const TraceClock uneven({{1, 10}, {1000, 20}, {1001, 5000}, {5000, 5001}});
  for (uint64_t i = 1; i < 5100; ++i) ASSERT_LE(uneven.TimeNs(i - 1), uneven.TimeNs(i)) << i;
  for (double t : {0.0, 9.0, 10.0, 15.0, 21.0, 4999.0, 5000.5, 6000.0}) {
    const uint64_t first = uneven.FirstEventAt(t);
    if (first > 0) {
      EXPECT_LT(uneven.TimeNs(first - 1), t) << t;
    }
    if (first < 5000) {
      EXPECT_GE(uneven.TimeNs(first), t) << t;
    }
  }
}

TEST_F(TraceStoreTest, LostEventsAreStoredPerPlaceAndKind) {
  const std::string path = Path("lost.seer");
  std::unique_ptr<TraceWriter> w;
  ASSERT_TRUE(TraceWriter::Create(path, {}, &w).ok());
  w->AddLost("bpf-ringbuf", EventKind::kAcquire, 5);
  w->AddLost("bpf-ringbuf", EventKind::kAcquire, 2);
  w->AddLost("runtime-ring", EventKind::kRead, 1);
  ASSERT_TRUE(w->Close().ok());
  std::vector<Event> events;
  TraceInfo info;
  ASSERT_TRUE(test::ReadTrace(path, &events, &info).ok());
  EXPECT_EQ(info.counters.lost["bpf-ringbuf"][static_cast<int>(EventKind::kAcquire)], 7u);
  EXPECT_EQ(info.counters.TotalLost(), 8u);
}

TEST_F(TraceStoreTest, MapGrowsForLargeTraces) {
  const std::string path = Path("big.seer");
  TraceWriterOptions options;
  options.initial_map_size = 1 << 20;  // 1 MiB: must grow many times
  options.zstd_level = 1;
  std::unique_ptr<TraceWriter> w;
  ASSERT_TRUE(TraceWriter::Create(path, options, &w).ok());
  std::mt19937_64 rng(9);
  for (int i = 0; i < 2000000; ++i) {  // random objects compress badly: ~10 MB on disk
    Event e = SizedEvent(rng() % 4, EventKind::kWrite, rng(), rng());
    ASSERT_TRUE(w->Append(e).ok());
  }
  ASSERT_TRUE(w->Close().ok());
  std::vector<Event> events;
  ASSERT_TRUE(test::ReadTrace(path, &events).ok());
  EXPECT_EQ(events.size(), 2000000u);
}

// The writer dies (SIGKILL) in the middle of writing: everything committed before
// reads back cleanly, and the trace says it is incomplete.
// A writer killed with chunks pending (on its encoder threads too) leaves
// the chunks committed before, and counters that agree with them.
class KilledWriterTest : public TraceStoreTest, public ::testing::WithParamInterface<int> {};

TEST_P(KilledWriterTest, LeavesTheCommittedChunks) {
  const std::string path = Path("killed.seer");
  int pipefd[2];
  ASSERT_EQ(pipe(pipefd), 0);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    close(pipefd[0]);
    TraceWriterOptions options;
    options.events_per_chunk = 1000;
    options.encode_threads = GetParam();
    std::unique_ptr<TraceWriter> w;
    if (!TraceWriter::Create(path, options, &w).ok()) _exit(1);
    for (uint64_t i = 0;; ++i) {
      if (!w->Append(SizedEvent(i % 3, EventKind::kRead, i, i)).ok()) _exit(1);
      if (i == 50500) {  // 50 chunks committed, a partial one pending
        char c = 'x';
        if (write(pipefd[1], &c, 1) != 1) _exit(1);
      }
    }
  }
  close(pipefd[1]);
  char c;
  ASSERT_EQ(read(pipefd[0], &c, 1), 1);
  kill(pid, SIGKILL);
  int status;
  waitpid(pid, &status, 0);
  close(pipefd[0]);
  ASSERT_TRUE(WIFSIGNALED(status));

  std::vector<Event> events;
  TraceInfo info;
  Status s = test::ReadTrace(path, &events, &info);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_FALSE(info.complete);
  // Encoder threads hold up to threads + 2 chunks not committed yet.
  EXPECT_GE(events.size(), GetParam() == 0 ? 50000u : 50000u - 1000u * (GetParam() + 2));
  EXPECT_EQ(events.size() % 1000, 0u) << "only whole committed chunks";
  EXPECT_EQ(events.size(), info.counters.events);
  for (uint64_t i = 0; i < events.size(); ++i) ASSERT_EQ(events[i].object, i);
}

INSTANTIATE_TEST_SUITE_P(EncodeThreads, KilledWriterTest, ::testing::Values(0, 2),
                         [](const auto& info) { return "encode_threads_" + std::to_string(info.param); });

// Each bad input gives one Status naming the file, never a crash.
class BadInputTest : public TraceStoreTest {
 protected:
  Status Open(const std::string& path) {
    std::vector<Event> events;
    return test::ReadTrace(path, &events);
  }
  void WriteBytes(const std::string& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }
  std::string ReadBytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
};

TEST_F(BadInputTest, MissingFile) {
  Status s = Open(Path("nope.seer"));
  EXPECT_EQ(s.code(), Status::Code::kNotFound);
  EXPECT_NE(s.message().find("nope.seer"), std::string::npos);
}

TEST_F(BadInputTest, Directory) {
  Status s = Open(dir_.string());
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("directory"), std::string::npos) << s.ToString();
}

TEST_F(BadInputTest, EmptyFile) {
  WriteBytes(Path("empty.seer"), "");
  Status s = Open(Path("empty.seer"));
  EXPECT_EQ(s.code(), Status::Code::kCorruption);
  EXPECT_NE(s.message().find("empty"), std::string::npos);
}

TEST_F(BadInputTest, RandomBytes) {
  std::mt19937_64 rng(5);
  for (size_t size : {100, 5000, 8192, 65536, 1 << 20}) {
    std::string junk(size, '\0');
    for (auto& c : junk) c = static_cast<char>(rng());
    WriteBytes(Path("junk.seer"), junk);
    Status s = Open(Path("junk.seer"));
    EXPECT_EQ(s.code(), Status::Code::kCorruption) << s.ToString();
    EXPECT_NE(s.message().find("junk.seer"), std::string::npos);
  }
}

TEST_F(BadInputTest, TruncatedFile) {
  const std::string path = Path("t.seer");
  ASSERT_TRUE(WriteTrace(path, 200000, 10000).ok());
  std::string bytes = ReadBytes(path);
  for (size_t keep : {bytes.size() / 2, bytes.size() - 4096, size_t{10000}}) {
    WriteBytes(Path("cut.seer"), bytes.substr(0, keep));
    Status s = Open(Path("cut.seer"));
    EXPECT_EQ(s.code(), Status::Code::kCorruption) << "kept " << keep << ": " << s.ToString();
    EXPECT_NE(s.message().find("cut.seer"), std::string::npos);
  }
}

TEST_F(BadInputTest, WrongFormatVersion) {
  const std::string path = Path("v.seer");
  std::unique_ptr<TraceWriter> w;
  ASSERT_TRUE(TraceWriter::Create(path, {}, &w).ok());
  w->SetMeta(meta::kFormatVersion, "999");
  ASSERT_TRUE(w->Close().ok());
  Status s = Open(path);
  EXPECT_EQ(s.code(), Status::Code::kNotSupported);
  EXPECT_NE(s.message().find("999"), std::string::npos) << s.ToString();
}

TEST_F(BadInputTest, FlippedByteInsideACompressedChunk) {
  const std::string path = Path("flip.seer");
  TraceWriterOptions options;
  options.events_per_chunk = 5000;
  std::unique_ptr<TraceWriter> w;
  ASSERT_TRUE(TraceWriter::Create(path, options, &w).ok());
  std::mt19937_64 rng(6);
  for (int i = 0; i < 20000; ++i) ASSERT_TRUE(w->Append(SizedEvent(i % 2, EventKind::kRead, rng(), rng())).ok());
  ASSERT_TRUE(w->Close().ok());
  // Find the third chunk's value in the file by its header: first index 10000,
  // then its event count. LMDB stores values verbatim.
  std::string bytes = ReadBytes(path);
  std::string header;
  coding::PutFixed64(&header, 10000);
  coding::PutFixed32(&header, 5000);
  size_t at = bytes.find(header);
  ASSERT_NE(at, std::string::npos);
  bytes[at + 16 + 200] ^= 0x01;  // inside the zstd frame
  WriteBytes(path, bytes);
  Status s = Open(path);
  EXPECT_EQ(s.code(), Status::Code::kCorruption) << s.ToString();
  EXPECT_NE(s.message().find("flip.seer: chunk 2"), std::string::npos) << s.ToString();
}

// A damaged clock sample would give wrong times silently: the tables' checksum
// covers the clock table.
TEST_F(BadInputTest, DamagedClockSampleIsCaught) {
  const std::string path = Path("clock.seer");
  std::unique_ptr<TraceWriter> w;
  ASSERT_TRUE(TraceWriter::Create(path, {}, &w).ok());
  ASSERT_TRUE(w->Append(SizedEvent(0, EventKind::kRead, 0x10, 0x20)).ok());
  const uint64_t ns = 0x0A1B2C3D4E5F6071ull;  // a value easy to find in the file
  w->AddClockSample(ns);
  ASSERT_TRUE(w->Close().ok());
  ASSERT_TRUE(Open(path).ok());
  std::string bytes = ReadBytes(path);
  const size_t at = bytes.find(coding::BigEndianKey(ns));
  ASSERT_NE(at, std::string::npos);
  bytes[at + 7] ^= 0x01;
  WriteBytes(path, bytes);
  Status s = Open(path);
  EXPECT_EQ(s.code(), Status::Code::kCorruption) << s.ToString();
  EXPECT_NE(s.message().find("clock"), std::string::npos) << s.ToString();
}

TEST_F(BadInputTest, OutputIntoMissingDirectory) {
  std::unique_ptr<TraceWriter> w;
  Status s = TraceWriter::Create(Path("no/such/dir/t.seer"), {}, &w);
  EXPECT_EQ(s.code(), Status::Code::kNotFound);
  EXPECT_NE(s.message().find("no/such/dir"), std::string::npos);
}

}  // namespace
}  // namespace seer::store
