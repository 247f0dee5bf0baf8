// RingMerger on hand-written rings: the topological merge of per-thread streams
// with per-domain numbers (locks, atomics, the global domain), the "after" word
// of a cond-wait end, records split across batches, numbers missing at the end,
// damaged rings, and compact records (pack/unpack, straddling the ring's end).
#include "recorder/merge/ring_merger.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "recorder/merge/spool_arena.h"
#include "runtime/rt_state.h"
#include "seer/ring_record.h"
#include "store/run_appender.h"
#include "store/tables.h"
#include "tests/support/program_suite.h"
#include "tests/support/shm_area.h"
#include "tests/support/trace_chunks.h"
#include "tests/support/trace_io.h"

namespace seer::recorder {
namespace {

constexpr uint32_t kRings = 4;
constexpr uint64_t kRingWords = 64;

// The shared area with kRings rings of kRingWords words.
struct Area : seer::test::ShmArea {
  Area() : ShmArea(kRings, kRingWords) {}
};

void Plain(RingWords* w, EventKind kind, uint64_t addr) {
  w->push_back(rt::ShortHead(static_cast<uint8_t>(kind), 4, addr));
  w->push_back(0x1000);
}
void Ordered(RingWords* w, EventKind kind, uint64_t object, uint32_t domain, uint64_t number) {
  for (uint64_t x :
       {rt::LongHead(static_cast<uint8_t>(kind), 0, object, 0, 0), uint64_t{0x2000}, rt::OrderWord(domain, number)})
    w->push_back(x);
}
void Lock(RingWords* w, EventKind kind, uint64_t lock, uint64_t number) {
  Ordered(w, kind, lock, rt::LockDomain(lock), number);
}

struct Out {
  std::vector<Event> events;
  RingMerger::Sink sink() {
    return [this](const Event& e) {
      events.push_back(e);
      return Status::Ok();
    };
  }
};

TEST(RingMergerTest, LockNumbersOrderAcrossThreadsExactly) {
  Area a;
  RingMerger merger(a.shm);
  Out out;
  RingBatch b;
  b.words.resize(2);
  const uint64_t m = 0x5000;
  // Thread 0 holds the lock second, thread 1 first; thread 0 also touches an
  // unrelated lock whose numbers start at 0.
  Lock(&b.words[0], EventKind::kAcquire, 0x9000, 0);
  Plain(&b.words[0], EventKind::kRead, 0x100);
  Lock(&b.words[0], EventKind::kAcquire, m, 2);
  Plain(&b.words[0], EventKind::kWrite, 0x200);
  Lock(&b.words[0], EventKind::kRelease, m, 3);
  Lock(&b.words[1], EventKind::kAcquire, m, 0);
  Plain(&b.words[1], EventKind::kWrite, 0x200);
  Lock(&b.words[1], EventKind::kRelease, m, 1);
  b.final = true;
  ASSERT_TRUE(merger.Add(&b, out.sink()).ok());
  ASSERT_EQ(out.events.size(), 8u);
  std::vector<std::pair<uint32_t, EventKind>> on_m;
  for (const Event& e : out.events)
    if (e.object == m) on_m.push_back({e.tid, e.kind});
  // Ring 1's pair comes first (numbers 0, 1), then ring 0's (2, 3).
  ASSERT_EQ(on_m.size(), 4u);
  EXPECT_EQ(on_m[0].second, EventKind::kAcquire);
  EXPECT_EQ(on_m[1].second, EventKind::kRelease);
  EXPECT_EQ(on_m[0].first, on_m[1].first);
  EXPECT_NE(on_m[1].first, on_m[2].first);
  EXPECT_EQ(on_m[2].first, on_m[3].first);
  EXPECT_EQ(merger.order_gaps(), 0u);
}

TEST(RingMergerTest, WaitsForANumberInALaterBatch) {
  Area a;
  RingMerger merger(a.shm);
  Out out;
  RingBatch first;
  first.words.resize(2);
  Plain(&first.words[0], EventKind::kRead, 0x100);
  Ordered(&first.words[0], EventKind::kWait, 0x700, rt::kGlobalDomain, 1);  // after the signal numbered 0
  Plain(&first.words[0], EventKind::kRead, 0x108);
  ASSERT_TRUE(merger.Add(&first, out.sink()).ok());
  // The plain record before the blocked wait is out; the wait and what follows are held.
  ASSERT_EQ(out.events.size(), 1u);
  RingBatch second;
  second.words.resize(2);
  Ordered(&second.words[1], EventKind::kSignal, 0x700, rt::kGlobalDomain, 0);
  second.final = true;
  ASSERT_TRUE(merger.Add(&second, out.sink()).ok());
  ASSERT_EQ(out.events.size(), 4u);
  EXPECT_EQ(out.events[1].kind, EventKind::kSignal);
  EXPECT_EQ(out.events[2].kind, EventKind::kWait);
  EXPECT_EQ(out.events[3].kind, EventKind::kRead);
}

TEST(RingMergerTest, CondWaitEndFollowsTheGlobalEventsItSaw) {
  Area a;
  RingMerger merger(a.shm);
  Out out;
  RingBatch b;
  b.words.resize(2);
  const uint64_t m = 0x5000, c = 0x6000;
  // Ring 0: wait begin (releases m, number 0), wait end (re-acquires m, number 1)
  // having seen one global event (the signal of ring 1, which does not hold m).
  Ordered(&b.words[0], EventKind::kCondWaitBegin, c, rt::LockDomain(m), 0);
  for (uint64_t x : {rt::LongHead(static_cast<uint8_t>(EventKind::kCondWaitEnd), 0, c, m, 1), uint64_t{0x2000},
                     rt::OrderWord(rt::LockDomain(m), 1), m, uint64_t{1}})
    b.words[0].push_back(x);
  Plain(&b.words[1], EventKind::kWrite, 0x100);
  Ordered(&b.words[1], EventKind::kSignal, c, rt::kGlobalDomain, 0);
  b.final = true;
  ASSERT_TRUE(merger.Add(&b, out.sink()).ok());
  ASSERT_EQ(out.events.size(), 4u);
  size_t signal_at = 0, end_at = 0;
  for (size_t i = 0; i < out.events.size(); ++i) {
    if (out.events[i].kind == EventKind::kSignal) signal_at = i;
    if (out.events[i].kind == EventKind::kCondWaitEnd) end_at = i;
  }
  EXPECT_LT(signal_at, end_at);
  EXPECT_EQ(out.events[end_at].aux, m);
}

TEST(RingMergerTest, FinalMergeSkipsMissingNumbersAndCountsThem) {
  Area a;
  RingMerger merger(a.shm);
  Out out;
  RingBatch b;
  b.words.resize(1);
  // Numbers 0 and 1 of the lock were taken by a thread killed before publishing.
  Lock(&b.words[0], EventKind::kAcquire, 0x5000, 2);
  Lock(&b.words[0], EventKind::kRelease, 0x5000, 3);
  ASSERT_TRUE(merger.Add(&b, out.sink()).ok());
  EXPECT_TRUE(out.events.empty());
  RingBatch last;
  last.final = true;
  ASSERT_TRUE(merger.Add(&last, out.sink()).ok());
  EXPECT_EQ(out.events.size(), 2u);
  EXPECT_EQ(merger.order_gaps(), 2u);
}

// One ring holding `words`, merged as the final batch: the merger must report `what`.
void ExpectDamage(const RingWords& words, const std::string& what) {
  Area a;
  RingMerger merger(a.shm);
  Out out;
  RingBatch b;
  b.words = {words};
  b.final = true;
  Status s = merger.Add(&b, out.sink());
  EXPECT_FALSE(s.ok()) << what;
  EXPECT_NE(s.ToString().find(what), std::string::npos) << s.ToString();
}

TEST(RingMergerTest, DamagedRingsAreReported) {
  RingWords twice;
  Lock(&twice, EventKind::kAcquire, 0x5000, 0);
  Lock(&twice, EventKind::kAcquire, 0x5000, 0);  // the same number twice
  ExpectDamage(twice, "delivered twice");
  ExpectDamage({rt::LongHead(static_cast<uint8_t>(EventKind::kAcquire), 0, 1, 0, 0), 2}, "cut short");
  ExpectDamage({rt::LongHead(static_cast<uint8_t>(EventKind::kAlloc), 0, 0x1000, 64, 0), 0x2000,
                rt::OrderWord(rt::kGlobalDomain, 0)},
               "cut short");  // its aux word is missing
  RingWords domain;
  Ordered(&domain, EventKind::kSignal, 1, rt::kDomains + 3, 0);
  ExpectDamage(domain, "out of range");
  // A compact record whose log2(size) is 7.
  ExpectDamage({rt::CompactHead(rt::CompactTag(0, 8), 0, 0x1000) | 7ull << 58}, "impossible size");
}

// Field by field: Event has no operator==.
void ExpectSameEvents(const std::vector<Event>& a, const std::vector<Event>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    SCOPED_TRACE("event " + std::to_string(i));
    EXPECT_EQ(a[i].tid, b[i].tid);
    EXPECT_EQ(a[i].kind, b[i].kind);
    EXPECT_EQ(a[i].object, b[i].object);
    EXPECT_EQ(a[i].aux, b[i].aux);
    EXPECT_EQ(a[i].pc, b[i].pc);
    EXPECT_EQ(a[i].mode, b[i].mode);
  }
}

TEST(RingMergerTest, RunsDeliverExactlyWhatOneByOneDelivers) {
  // Three threads take one lock in a random order, with 0-700 plain records
  // (compact and short) inside each critical section, in two batches: more
  // events than a run holds, and runs cut inside a thread's plain records.
  std::srand(7);
  RingBatch first, second;
  first.words.resize(3);
  second.words.resize(3);
  const uint64_t m = 0x5000;
  uint64_t number = 0;
  std::vector<uint64_t> last_pc(3, 0);
  for (int section = 0; section < 60; ++section) {
    const int r = std::rand() % 3;
    RingWords* w = section < 30 ? &first.words[r] : &second.words[r];
    Lock(w, EventKind::kAcquire, m, number++);
    for (int i = std::rand() % 700; i > 0; --i) {
      const uint8_t kind = static_cast<uint8_t>(i % 2 == 0 ? EventKind::kRead : EventKind::kWrite);
      const uint64_t addr = 0x10000 + 8 * static_cast<uint64_t>(std::rand() % 512);
      const uint64_t pc = 0x400000 + 4 * static_cast<uint64_t>(std::rand() % 64);
      const uint64_t offset = rt::CompactOffset(pc, last_pc[r]);
      if (last_pc[r] != 0 && rt::CompactFits(offset) && i % 3 != 0) {
        w->push_back(rt::CompactHead(rt::CompactTag(kind, 8), offset, addr));
      } else {
        w->push_back(rt::ShortHead(kind, 8, addr));
        w->push_back(pc);
      }
      last_pc[r] = pc;
    }
    Lock(w, EventKind::kRelease, m, number++);
  }
  second.final = true;

  Area a1, a2;
  RingMerger one_by_one(a1.shm), in_runs(a2.shm);
  Out expected, got;
  std::vector<size_t> run_sizes;
  RingMerger::RunSink runs = [&](const Event* events, size_t n, const std::shared_ptr<const store::RepeatedRun>&) {
    run_sizes.push_back(n);
    got.events.insert(got.events.end(), events, events + n);
    return Status::Ok();
  };
  for (RingBatch* b : {&first, &second}) {
    RingBatch copy = *b;
    ASSERT_TRUE(one_by_one.Add(&copy, expected.sink()).ok());
    uint64_t emitted = 0;
    ASSERT_TRUE(in_runs.AddRuns(b, runs, &emitted).ok());
    EXPECT_EQ(got.events.size(), expected.events.size());  // nothing held back at the end of a batch
    EXPECT_GT(emitted, 0u);
  }
  EXPECT_GT(expected.events.size(), 2 * RingMerger::kRunEvents);
  ExpectSameEvents(expected.events, got.events);
  for (size_t n : run_sizes) EXPECT_LE(n, RingMerger::kRunEvents);
  EXPECT_GT(run_sizes.size(), 2u);
}

// Repeats (RingMerger::RunSink): threads repeat loop bodies between lock
// events, sometimes one word changed or the body shorter or new; rings are
// copied in batches cut at random records (inside segments, as a wrapping ring
// is copied), threads interleave through a shared lock. The merger with
// repeats delivers the same events as without, and a trace writer given the
// repeats as such (AppendRepeat) writes the same chunks, byte for byte, and
// the same counters.
TEST(RingMergerTest, RepeatsDeliverAndWriteWhatDecodingDoes) {
  std::mt19937_64 rng(31);
  constexpr uint32_t kThreads = 3;
  std::vector<RingWords> streams(kThreads);
  std::vector<std::vector<size_t>> record_ends(kThreads);  // where a batch may end
  std::vector<uint64_t> last_pc(kThreads, 0), next_number(rt::kDomains, 0);
  struct Access {
    uint8_t kind;
    uint64_t addr, pc;
  };
  std::vector<std::vector<Access>> body(kThreads);
  auto lock = [&](uint32_t t, EventKind kind, uint64_t m) {
    Lock(&streams[t], kind, m, next_number[rt::LockDomain(m)]++);
    record_ends[t].push_back(streams[t].size());
  };
  for (int op = 0; op < 3000; ++op) {
    const uint32_t t = static_cast<uint32_t>(rng() % kThreads);
    std::vector<Access>& b = body[t];
    const int change = b.empty() ? 0 : static_cast<int>(rng() % 12);
    if (change == 0) {
      b.clear();
      const size_t n = 4 + rng() % 200;
      for (size_t i = 0; i < n; ++i)
        b.push_back({static_cast<uint8_t>(i % 2 ? EventKind::kWrite : EventKind::kRead),
                     0x10000 * (t + 1) + 8 * (i / 2 % 64), 0x400000 + 4 * (i % 2) + (i % 7 == 0 ? 0x1000 : 0)});
    } else if (change == 1) {
      b[rng() % b.size()].addr += 8;
    } else if (change == 2) {
      b[rng() % b.size()].pc += 4;
    } else if (change == 3 && b.size() > 1) {
      b.pop_back();
    }
    // Its own lock mostly; a shared one now and then (threads interleave).
    const uint64_t m = rng() % 8 == 0 ? 0x5000 : 0x6000 + 64 * t;
    lock(t, EventKind::kAcquire, m);
    for (const Access& a : b) {
      const uint64_t offset = rt::CompactOffset(a.pc, last_pc[t]);
      if (last_pc[t] != 0 && rt::CompactFits(offset)) {
        streams[t].push_back(rt::CompactHead(rt::CompactTag(a.kind, 8), offset, a.addr));
      } else {
        streams[t].push_back(rt::ShortHead(a.kind, 8, a.addr));
        streams[t].push_back(a.pc);
      }
      last_pc[t] = a.pc;
      record_ends[t].push_back(streams[t].size());
    }
    lock(t, EventKind::kRelease, m);
  }
  // Each ring copied in 40 pieces, cut at random records.
  constexpr int kBatches = 40;
  std::vector<RingBatch> batches(kBatches);
  for (uint32_t t = 0; t < kThreads; ++t) {
    std::vector<size_t> cuts = {0, streams[t].size()};
    for (int i = 1; i < kBatches; ++i) cuts.push_back(record_ends[t][rng() % record_ends[t].size()]);
    std::sort(cuts.begin(), cuts.end());
    for (int i = 0; i < kBatches; ++i) {
      batches[i].words.resize(kThreads);
      batches[i].words[t].assign(streams[t].begin() + static_cast<ptrdiff_t>(cuts[i]),
                                 streams[t].begin() + static_cast<ptrdiff_t>(cuts[i + 1]));
    }
  }
  batches.back().final = true;

  const test::ScratchDir scratch("seer-ring-merger-test");
  const std::string dir = scratch.Path("");
  auto record = [&](bool repeats, std::vector<Event>* events, std::vector<std::string>* chunks, TraceInfo* info,
                    uint64_t* repeated) {
    Area a;
    RingMerger merger(a.shm);
    merger.DetectRepeats(repeats);
    const std::string path = dir + (repeats ? "repeats-on" : "repeats-off") + ".seer";
    TraceWriterOptions options;
    options.events_per_chunk = 1000;
    options.encode_threads = 2;
    std::unique_ptr<TraceWriter> writer;
    ASSERT_TRUE(TraceWriter::Create(path, options, &writer).ok());
    auto* runs = dynamic_cast<store::RunAppender*>(writer.get());
    ASSERT_NE(runs, nullptr);
    RingMerger::RunSink sink = [&](const Event* e, size_t n, const std::shared_ptr<const store::RepeatedRun>& repeat) {
      events->insert(events->end(), e, e + n);
      return repeat != nullptr ? runs->AppendRepeat(repeat) : runs->AppendRun(e, n);
    };
    for (const RingBatch& b : batches) {
      RingBatch copy = b;
      Status s = merger.AddRuns(&copy, sink);
      ASSERT_TRUE(s.ok()) << s.ToString();
    }
    ASSERT_TRUE(writer->Close().ok());
    *repeated = merger.repeats();
    ASSERT_TRUE(test::ReadRawChunks(path, chunks).ok());
    std::vector<Event> read;
    ASSERT_TRUE(test::ReadTrace(path, &read, info).ok());
    EXPECT_EQ(read.size(), events->size());
    std::remove(path.c_str());
  };
  std::vector<Event> decoded, repeated_events;
  std::vector<std::string> decoded_chunks, repeated_chunks;
  TraceInfo decoded_info, repeated_info;
  uint64_t off_repeats = 0, on_repeats = 0;
  ASSERT_NO_FATAL_FAILURE(record(false, &decoded, &decoded_chunks, &decoded_info, &off_repeats));
  ASSERT_NO_FATAL_FAILURE(record(true, &repeated_events, &repeated_chunks, &repeated_info, &on_repeats));
  EXPECT_EQ(off_repeats, 0u);
  // A third of the segments differ from the last: some runs of misses make
  // the merger back off (kRepeatMisses), and it still finds hundreds.
  EXPECT_GT(on_repeats, 500u) << "of 3000 segments";
  ExpectSameEvents(decoded, repeated_events);
  ASSERT_EQ(repeated_chunks.size(), decoded_chunks.size());
  for (size_t i = 0; i < decoded_chunks.size(); ++i)
    ASSERT_TRUE(repeated_chunks[i] == decoded_chunks[i]) << "chunk " << i;
  EXPECT_EQ(store::EncodeCounters(repeated_info.counters), store::EncodeCounters(decoded_info.counters));
}

// The same words are not the same events when the pc rule starts from another
// pc: segments of compact records that each move the pc on by 4 are word for
// word alike, yet each one's pcs are 32 past the last one's.
TEST(RingMergerTest, SameWordsFromAnotherPcAreNoRepeat) {
  RingBatch b;
  b.words.resize(1);
  uint64_t number = 0;
  Plain(&b.words[0], EventKind::kRead, 0x100);  // a short record: the last pc is 0x1000
  for (int segment = 0; segment < 6; ++segment) {
    Lock(&b.words[0], EventKind::kAcquire, 0x5000, number++);
    for (int i = 0; i < 8; ++i)
      b.words[0].push_back(rt::CompactHead(rt::CompactTag(static_cast<uint8_t>(EventKind::kRead), 8),
                                           rt::CompactOffset(4, 0), 0x200 + 8 * i));
    Lock(&b.words[0], EventKind::kRelease, 0x5000, number++);
  }
  b.final = true;
  auto merge = [&](bool repeats, std::vector<Event>* out) {
    Area a;
    RingMerger merger(a.shm);
    merger.DetectRepeats(repeats);
    RingBatch copy = b;
    ASSERT_TRUE(merger
                    .AddRuns(&copy,
                             [&](const Event* e, size_t n, const std::shared_ptr<const store::RepeatedRun>&) {
                               out->insert(out->end(), e, e + n);
                               return Status::Ok();
                             })
                    .ok());
    EXPECT_EQ(merger.repeats(), 0u);
  };
  std::vector<Event> with, without;
  ASSERT_NO_FATAL_FAILURE(merge(true, &with));
  ASSERT_NO_FATAL_FAILURE(merge(false, &without));
  ExpectSameEvents(without, with);
  ASSERT_EQ(with.size(), 1u + 6 * 10);
  EXPECT_EQ(with.back().kind, EventKind::kRelease);
  EXPECT_EQ(with[with.size() - 2].pc, 0x1000u + 6 * 8 * 4);
}

// The merger frees what it has delivered at once, and moves what it holds
// back to new blocks: the spool arena reclaims only from its oldest block,
// so a block held by a ring that receives nothing for a while (main in
// pthread_join) would keep everything copied after it resident.
TEST(RingMergerTest, HoldsNoOldSpoolBlockWhileOtherRingsStream) {
  SpoolArena& arena = SpoolArena::Get();
  ASSERT_EQ(arena.span_bytes(), 0u);
  const uint64_t fallbacks = arena.fallbacks();
  Area a;
  RingMerger merger(a.shm);
  uint64_t delivered = 0;
  RingMerger::RunSink count = [&](const Event*, size_t n, const std::shared_ptr<const store::RepeatedRun>&) {
    delivered += n;
    return Status::Ok();
  };
  const uint64_t m = 0x5000;
  uint64_t widest = 0;
  for (int round = 0; round < 200; ++round) {
    RingBatch b;
    b.words.resize(3);
    for (RingWords& w : b.words) w.reserve(1100);  // one block per ring, as the collector copies
    // Ring 0 only in the first round, delivered in full. Ring 1 each round:
    // 500 accesses, then lock m's number 2r+1, which waits for ring 2's 2r of
    // the next round: its last words are held back from one batch to the next.
    if (round == 0)
      for (int i = 0; i < 500; ++i) Plain(&b.words[0], EventKind::kRead, 0x100 + 8 * i);
    for (int i = 0; i < 500; ++i) Plain(&b.words[1], EventKind::kWrite, 0x8000 + 8 * i);
    Lock(&b.words[1], EventKind::kAcquire, m, 2 * round + 1);
    if (round > 0) Lock(&b.words[2], EventKind::kAcquire, m, 2 * (round - 1));
    for (int i = 0; i < 500; ++i) Plain(&b.words[2], EventKind::kRead, 0x9000 + 8 * i);
    ASSERT_TRUE(merger.AddRuns(&b, count).ok());
    widest = std::max(widest, arena.span_bytes());
  }
  EXPECT_GE(delivered, 500u + 199u * 1001u);
  // A round copies about 16 KB; held blocks would make the span 200 rounds wide.
  EXPECT_LT(widest, 20u * 16000u) << "the arena's span grows with what was copied";
  // Nor do the blocks leave the arena for malloc, which is where they went when
  // a held block left too little room at the arena's front.
  EXPECT_EQ(arena.fallbacks(), fallbacks);
}

TEST(RingMergerTest, RunsReportDamageLikeOneByOne) {
  Area a;
  RingMerger merger(a.shm);
  RingBatch b;
  b.words.resize(1);
  Plain(&b.words[0], EventKind::kRead, 0x100);
  b.words[0].push_back(rt::CompactHead(rt::CompactTag(0, 8), 0, 0x1000) | 7ull << 58);  // impossible size
  b.final = true;
  size_t delivered = 0;
  Status s = merger.AddRuns(&b, [&](const Event*, size_t n, const std::shared_ptr<const store::RepeatedRun>&) {
    delivered += n;
    return Status::Ok();
  });
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.ToString().find("impossible size"), std::string::npos) << s.ToString();
  EXPECT_EQ(delivered, 0u);  // the run is not handed over after a failure
}

// Compact records: the pc rule's bounds, every size, and what has no compact form.
TEST(CompactRecordTest, PackAndUnpackAtTheDeltaBounds) {
  const uint8_t R = static_cast<uint8_t>(EventKind::kRead), W = static_cast<uint8_t>(EventKind::kWrite);
  const uint64_t last = 0x55d3877f9000, object = 0x7ffd12345678;
  for (int64_t delta : {rt::kCompactMinDelta, int64_t{-1}, int64_t{0}, int64_t{1}, rt::kCompactMaxDelta}) {
    const uint64_t pc = last + static_cast<uint64_t>(delta);
    const uint64_t offset = rt::CompactOffset(pc, last);
    ASSERT_TRUE(rt::CompactFits(offset)) << delta;
    for (uint64_t size : {1, 2, 4, 8, 16}) {
      for (uint8_t kind : {R, W}) {
        const uint64_t w0 = rt::CompactHead(rt::CompactTag(kind, size), offset, object);
        EXPECT_TRUE(rt::IsCompact(w0));
        EXPECT_FALSE(rt::IsLong(w0));
        EXPECT_EQ(rt::RecordWords(w0), 1);
        EXPECT_EQ(rt::CompactKind(w0), kind);
        EXPECT_EQ(rt::CompactSize(w0), size);
        EXPECT_EQ(rt::ShortObject(w0), object);
        EXPECT_EQ(rt::CompactPc(w0, last), pc) << delta;
      }
    }
  }
  EXPECT_EQ(rt::kCompactMinDelta, -512);
  EXPECT_EQ(rt::kCompactMaxDelta, 511);
  EXPECT_FALSE(rt::CompactFits(rt::CompactOffset(last + 512, last)));
  EXPECT_FALSE(rt::CompactFits(rt::CompactOffset(last - 513, last)));
  EXPECT_FALSE(rt::CompactFits(rt::CompactOffset(last + (1ull << 40), last)));
  EXPECT_FALSE(rt::CompactFits(rt::CompactOffset(0x400000, 0)));  // a ring's first access: no last pc yet
  // The object keeps 48 bits and cannot reach the tag.
  EXPECT_EQ(rt::ShortObject(rt::CompactHead(rt::CompactTag(W, 8), 0, ~0ull)), rt::kObjectMask);
  EXPECT_EQ(rt::CompactKind(rt::CompactHead(rt::CompactTag(R, 8), 1023, ~0ull)), R);
  // Sizes without a compact form, and kinds other than plain reads and writes.
  for (uint64_t size : {0, 3, 5, 32, 255}) EXPECT_EQ(rt::CompactTag(W, size), 0u) << size;
  EXPECT_EQ(rt::CompactTag(static_cast<uint8_t>(EventKind::kFuncEntry), 8), 0u);
  EXPECT_EQ(rt::CompactTag(static_cast<uint8_t>(EventKind::kAtomicLoad), 8), 0u);
  // Short records of every kind keep bit 62 clear.
  for (int k = 0; k < kNumEventKinds; ++k) {
    const uint64_t w0 = rt::ShortHead(static_cast<uint8_t>(k), 255, ~0ull);
    EXPECT_FALSE(rt::IsCompact(w0)) << k;
    EXPECT_EQ(rt::RecordWords(w0), 2) << k;
  }
}

// The runtime's own writer (rt_state.h) on ring `ring` of a test area, its
// head and tail set to `start`.
struct RingWriter {
  rt::ThreadState& ts;
  RingWriter(rt::ShmHeader* shm, uint32_t ring, uint64_t start) : ts(Open(shm, ring, start)) {}
  static rt::ThreadState& Open(rt::ShmHeader* shm, uint32_t ring, uint64_t start) {
    rt::RingDesc& d = rt::RingDescs(shm)[ring];
    d.head.store(start);
    d.tail.store(start);
    return *rt::OpenRing(shm, ring);
  }
  uint64_t head() const { return rt::Head(&ts); }
  // Makes what was written visible to a collector, as the runtime's slow paths do.
  void Publish() { rt::Publish(&ts, head()); }
  // A plain access as PutAccessFast/PutAccessSlow write it (without their
  // refills: the test's rings never fill); true if compact.
  bool Access(EventKind kind, uint64_t size, uint64_t addr, uint64_t pc) {
    const uint8_t k = static_cast<uint8_t>(kind);
    if (rt::CompactFits(rt::CompactOffset(pc, ts.last_pc))) {
      if (rt::TryCompact(&ts, rt::CompactTag(k, size), addr, pc)) return true;
      rt::SetHead(&ts, head());  // the cursor was at the ring's end: on to its start
      EXPECT_TRUE(rt::TryCompact(&ts, rt::CompactTag(k, size), addr, pc));
      return true;
    }
    if (!rt::TryShort(&ts, k, size, addr, pc)) rt::WriteShortAnywhere(&ts, k, size, addr, pc);
    return false;
  }
};

TEST(CompactRecordTest, RecordsStraddlingTheRingsEndThroughCollectorAndMerger) {
  Area a;
  // Start three words before the end: the second record (short) takes the
  // last word and the first, a later long one straddles the end again.
  RingWriter w(a.shm, 1, 3 * kRingWords - 3);
  const uint64_t p0 = 0x401000, p1 = p0 + 0x300, p2 = p1 + 511, p3 = p2 - 512, p4 = p3 + 3;
  std::vector<Event> expected;
  auto access = [&](EventKind kind, uint64_t size, uint64_t addr, uint64_t pc, bool compact) {
    EXPECT_EQ(w.Access(kind, size, addr, pc), compact) << std::hex << pc;
    Event e;
    e.kind = kind;
    e.object = addr;
    e.aux = size;
    e.pc = pc;
    expected.push_back(e);
  };
  access(EventKind::kRead, 4, 0x1000, p0, false);   // words 61, 62: no last pc yet
  access(EventKind::kWrite, 8, 0x1008, p1, false);  // 63 and 0: 768 bytes on
  EXPECT_EQ(w.head() % kRingWords, 1u);
  access(EventKind::kRead, 1, 0x1010, p2, true);  // +511
  RingCollector collector(a.shm);
  RingMerger merger(a.shm);
  Out out;
  RingBatch b;
  w.Publish();
  ASSERT_TRUE(collector.Collect(false, &b));
  EXPECT_EQ(b.words[1].size(), 5u);
  ASSERT_TRUE(merger.Add(&b, out.sink()).ok());
  // The merger keeps the last pc across batches.
  access(EventKind::kWrite, 16, 0x1020, p3, true);  // -512
  // A function entry leaves its object (a pc in the callee) as the last pc, an
  // exit nothing; their own pcs (call site, a pc in the callee) count for nothing.
  const uint64_t callee = 0x7000000;
  auto call_event = [&](EventKind kind, uint64_t object, uint64_t pc) {
    ASSERT_TRUE(rt::TryShort(&w.ts, static_cast<uint8_t>(kind), 0, object, pc));
    Event e;
    e.kind = kind;
    e.object = object;
    e.pc = pc;
    expected.push_back(e);
  };
  call_event(EventKind::kFuncEntry, callee, p3 + 2);
  access(EventKind::kRead, 2, 0x1030, callee + 40, true);
  call_event(EventKind::kFuncExit, 0, callee + 90);
  access(EventKind::kWrite, 4, 0x1038, callee + 40 + 511, true);
  access(EventKind::kRead, 2, 0x1030, p4, false);
  access(EventKind::kWrite, 4, 0x1040, p4 - 513, false);
  access(EventKind::kWrite, 4, 0x1044, p4 - 513 + 4, true);
  for (int i = 0; i < 40; ++i) access(EventKind::kRead, 8, 0x2000 + 8 * i, p4 + 8 * i, true);  // past the end again
  ASSERT_TRUE(collector.Collect(true, &b));
  ASSERT_TRUE(merger.Add(&b, out.sink()).ok());
  ASSERT_EQ(out.events.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(out.events[i].kind, expected[i].kind) << i;
    EXPECT_EQ(out.events[i].object, expected[i].object) << i;
    EXPECT_EQ(out.events[i].aux, expected[i].aux) << i;
    EXPECT_EQ(out.events[i].pc, expected[i].pc) << i;
  }
  EXPECT_EQ(rt::RingDescs(a.shm)[1].tail.load(), w.head());
}

// Repeat marks (ring_record.h): the runtime's own writer, marks on, takes back
// each segment that repeats its reference and writes a mark instead; the
// merger hands back the very events that were written, one by one and in
// runs, repeats as one object. Segments change now and then (an address, a
// pc, a length), some are too long or too short to be marked, the ring laps
// many times (a reference written over is not used) and publications fall
// inside segments (no mark for those).
TEST(RepeatMarksTest, MarkedRingsMergeToTheEventsWritten) {
  constexpr uint64_t kWords = 8192;
  for (const bool runs : {false, true}) {
    SCOPED_TRACE(runs ? "runs" : "one by one");
    seer::test::ShmArea area(2, kWords);
    RingWriter w(area.shm, 0, 0);
    w.ts.repeat_marks = true;
    RingCollector collector(area.shm);
    RingMerger merger(area.shm);
    std::vector<Event> expected, got;
    uint64_t repeats_in_runs = 0;
    RingMerger::RunSink run_sink = [&](const Event* e, size_t n, const std::shared_ptr<const store::RepeatedRun>& r) {
      got.insert(got.end(), e, e + n);
      if (r != nullptr) {
        EXPECT_EQ(r->events.size(), n);
        ++repeats_in_runs;
      }
      return Status::Ok();
    };
    Out out;
    auto collect = [&](bool final) {
      RingBatch b;
      collector.Collect(final, &b);
      Status s = runs ? merger.AddRuns(&b, run_sink) : merger.Add(&b, out.sink());
      ASSERT_TRUE(s.ok()) << s.ToString();
      // The room the drainer made, as MakeRoom would see it.
      w.ts.limit = rt::RingDescs(area.shm)[0].tail.load() + kWords;
      rt::SetHead(&w.ts, w.head());
    };
    // Room for `words` below `end`, as Refill makes it (publishing first).
    auto room = [&](uint64_t words) {
      while (w.ts.cursor + words > w.ts.end) {
        rt::Publish(&w.ts, w.head());
        rt::SetHead(&w.ts, w.head());
        if (w.ts.cursor + words <= w.ts.end) break;
        if ((w.head() & (kWords - 1)) + words > kWords && w.head() + 1 <= w.ts.limit) {
          // A record never straddles the end here: pad with one-word accesses.
          ASSERT_TRUE(w.Access(EventKind::kRead, 8, 0x9000, w.ts.last_pc));
          expected.push_back({});
          expected.back().kind = EventKind::kRead;
          expected.back().object = 0x9000;
          expected.back().aux = 8;
          expected.back().pc = w.ts.last_pc;
          continue;
        }
        collect(false);
      }
    };
    uint64_t number = 0;
    auto lock = [&](EventKind kind) {
      ASSERT_NO_FATAL_FAILURE(room(rt::kMaxLongWords + rt::kShortWords));
      rt::WriteLong(&w.ts, static_cast<uint8_t>(kind), 0, 0x6000, 0, 0x2000,
                    rt::OrderWord(rt::LockDomain(0x6000), number++));
      Event e;
      e.kind = kind;
      e.object = 0x6000;
      e.pc = 0x2000;
      expected.push_back(e);
    };
    std::mt19937_64 rng(runs ? 7 : 8);
    std::vector<std::pair<uint64_t, uint64_t>> body;  // address, pc
    uint64_t words_written = 0;
    for (int op = 0; op < 4000; ++op) {
      const int change = body.empty() ? 0 : static_cast<int>(rng() % 16);
      if (change == 0) {
        body.clear();
        const size_t n = rng() % 8 == 0 ? 1 + rng() % 1300 : 2 + rng() % 200;
        for (size_t i = 0; i < n; ++i) body.push_back({0x10000 + 8 * (i % 300), 0x400000 + 4 * (i % 3)});
      } else if (change == 1) {
        body[rng() % body.size()].first += 8;
      } else if (change == 2) {
        body[rng() % body.size()].second += 0x1000;  // a short record
      }
      lock(EventKind::kAcquire);
      for (const auto& [addr, pc] : body) {
        ASSERT_NO_FATAL_FAILURE(room(rt::kShortWords));
        const EventKind kind = (addr / 8) % 2 ? EventKind::kWrite : EventKind::kRead;
        w.Access(kind, 8, addr, pc);
        Event e;
        e.kind = kind;
        e.object = addr;
        e.aux = 8;
        e.pc = pc;
        expected.push_back(e);
      }
      words_written += body.size();
      lock(EventKind::kRelease);
      if (rng() % 3 == 0) collect(false);
    }
    rt::Publish(&w.ts, w.head());
    collect(true);
    if (!runs) got = out.events;
    for (Event& e : expected) e.tid = got.empty() ? 0 : got[0].tid;
    ExpectSameEvents(expected, got);
    // Most segments were marked: far fewer words than accesses went through
    // the ring (those of 513 words or more never are, nor those that cross
    // the ring's end or the room the drainer left).
    EXPECT_LT(w.head(), words_written * 2 / 3) << "of " << words_written << " accesses";
    if (runs) {
      EXPECT_GT(repeats_in_runs, 1000u);
    }
    EXPECT_EQ(merger.repeats(), runs ? repeats_in_runs : 0u);
  }
}

// Long records take three to five words: aux and "after" only when not 0.
// Every shape, written by the runtime's own writer from two words before the
// ring's end (so the first ones straddle it), comes back whole from the
// collector and the merger.
TEST(LongRecordTest, EveryShapeStraddlesTheEndAndRoundTrips) {
  Area a;
  RingWriter w(a.shm, 2, 5 * kRingWords - 2);
  const uint64_t lock = 0x5008, cond = 0x6000;
  const uint32_t ld = rt::LockDomain(lock);
  struct Shape {
    EventKind kind;
    uint8_t mode;
    uint64_t object, aux, pc, order, after;
    int words;
  };
  const Shape shapes[] = {
      {EventKind::kAcquire, 1, lock, 0, 0x401000, rt::OrderWord(ld, 0), 0, 3},
      {EventKind::kAlloc, 2, 0x7f0000001000, 4096, 0x401010, rt::OrderWord(rt::kGlobalDomain, 0), 0, 4},
      {EventKind::kCondWaitEnd, 0, cond, lock, 0x401020, rt::OrderWord(ld, 1), 1, 5},
      {EventKind::kCondWaitEnd, 0, cond, 0, 0x401030, rt::OrderWord(ld, 2), 1, 4},  // after, no aux
      {EventKind::kWrite, 0, 0x9000, 4096, 0x401040, rt::kNoSeq, 0, 4},             // a big range: plain
      {EventKind::kRelease, 1, lock, 0, 0x401050, rt::OrderWord(ld, 3), 0, 3},
  };
  uint64_t words = 0;
  for (const Shape& sh : shapes) {
    ASSERT_EQ(rt::LongWords(sh.aux, sh.after), sh.words);
    const uint64_t before = w.head();
    rt::WriteLong(&w.ts, static_cast<uint8_t>(sh.kind), sh.mode, sh.object, sh.aux, sh.pc, sh.order, sh.after);
    EXPECT_EQ(w.head() - before, static_cast<uint64_t>(sh.words));
    EXPECT_EQ(rt::RingDescs(a.shm)[2].head.load(), w.head());  // long records publish
    EXPECT_EQ(rt::RecordWords(rt::RingData(a.shm, 2)[before % kRingWords]), sh.words);
    words += sh.words;
  }
  RingCollector collector(a.shm);
  RingMerger merger(a.shm);
  Out out;
  RingBatch b;
  ASSERT_TRUE(collector.Collect(true, &b));
  EXPECT_EQ(b.words[2].size(), words);
  ASSERT_TRUE(merger.Add(&b, out.sink()).ok());
  ASSERT_EQ(out.events.size(), std::size(shapes));
  for (size_t i = 0; i < std::size(shapes); ++i) {
    EXPECT_EQ(out.events[i].kind, shapes[i].kind) << i;
    EXPECT_EQ(out.events[i].mode, shapes[i].mode) << i;
    EXPECT_EQ(out.events[i].object, shapes[i].object) << i;
    EXPECT_EQ(out.events[i].aux, shapes[i].aux) << i;
    EXPECT_EQ(out.events[i].pc, shapes[i].pc) << i;
  }
  EXPECT_EQ(merger.order_gaps(), 0u);
}

}  // namespace
}  // namespace seer::recorder
