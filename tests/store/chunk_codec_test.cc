#include "store/chunk_codec.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "tests/support/trace_builder.h"

namespace seer::store {
namespace {

std::vector<Event> RandomEvents(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Event> events(n);
  for (size_t i = 0; i < n; ++i) {
    Event& e = events[i];
    e.index = i;
    e.tid = rng() % 7;
    e.kind = static_cast<EventKind>(rng() % kNumEventKinds);
    e.object = (rng() % 3 == 0) ? rng() : 0x7f0000001000ull + (rng() % 4096) * 8;
    e.aux = (rng() % 4 == 0) ? rng() % 100 : 8;
    e.pc = 0x401000 + rng() % 50000;
    e.mode = (rng() % 5 == 0) ? rng() % 6 : 0;
  }
  return events;
}

void ExpectSame(const Event& a, const Event& b) {
  EXPECT_EQ(a.index, b.index);
  EXPECT_EQ(a.tid, b.tid);
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.object, b.object);
  EXPECT_EQ(a.aux, b.aux);
  EXPECT_EQ(a.pc, b.pc);
  EXPECT_EQ(a.mode, b.mode);
}

class ChunkCodecRoundTrip : public ::testing::TestWithParam<bool> {};

TEST_P(ChunkCodecRoundTrip, EveryFieldInSmallBatches) {
  auto events = RandomEvents(20000, 1);
  ChunkEncoder enc;
  for (const auto& e : events) enc.Add(e);
  std::string chunk;
  ASSERT_TRUE(enc.Finish(0, 3, /*entropy_coding=*/GetParam(), &chunk).ok());
  ChunkDecoder dec;
  ASSERT_TRUE(dec.Load(chunk).ok());
  EXPECT_EQ(dec.event_count(), events.size());
  std::vector<Event> out;
  while (dec.remaining() > 0) ASSERT_TRUE(dec.Decode(333, &out).ok());
  ASSERT_EQ(out.size(), events.size());
  for (size_t i = 0; i < events.size(); ++i) ExpectSame(events[i], out[i]);
}

INSTANTIATE_TEST_SUITE_P(EntropyCoding, ChunkCodecRoundTrip, ::testing::Bool());

// Programs touch the same object again from the same location, or the next
// element of an array: the site prediction must encode both in about two bytes.
TEST(ChunkCodec, RepeatedSitesAreSmall) {
  ChunkEncoder enc;
  for (uint64_t i = 0; i < 10000; ++i) {
    Event e;
    e.tid = 0;
    e.kind = EventKind::kRead;
    e.aux = 8;
    e.pc = 0x401000 + (i % 4) * 16;                                                   // a loop of four accesses
    e.object = (i % 4 == 3) ? 0x7f0000000000 + (i / 4) * 8 : 0x601040 + (i % 4) * 8;  // 3 globals, 1 array scan
    enc.Add(e);
  }
  EXPECT_LE(enc.raw_bytes(), 10000u * 5 / 2);
  std::string chunk;
  ASSERT_TRUE(enc.Finish(0, 3, false, &chunk).ok());
  EXPECT_LE(chunk.size(), 10000u);
}

TEST(ChunkCodec, ChunksAreIndependentAndCarryTheirFirstIndex) {
  auto events = RandomEvents(1000, 2);
  ChunkEncoder enc;
  std::string first, second;
  for (size_t i = 0; i < 500; ++i) enc.Add(events[i]);
  ASSERT_TRUE(enc.Finish(0, 1, true, &first).ok());
  for (size_t i = 500; i < 1000; ++i) enc.Add(events[i]);
  ASSERT_TRUE(enc.Finish(500, 1, false, &second).ok());
  ChunkDecoder dec;
  std::vector<Event> out;
  ASSERT_TRUE(dec.Load(second).ok());  // decodable without the first chunk
  EXPECT_EQ(dec.first_index(), 500u);
  ASSERT_TRUE(dec.Decode(1000, &out).ok());
  for (size_t i = 0; i < 500; ++i) ExpectSame(events[500 + i], out[i]);
}

// A flipped bit is either reported as corruption or falls on a bit the zstd
// decoder does not use (padding), in which case the events decode unchanged:
// never a silent wrong answer.
TEST(ChunkCodec, EveryFlippedByteIsDetectedOrHarmless) {
  auto events = RandomEvents(300, 3);
  ChunkEncoder enc;
  for (const auto& e : events) enc.Add(e);
  std::string chunk;
  ASSERT_TRUE(enc.Finish(0, 3, false, &chunk).ok());
  size_t detected = 0;
  for (size_t pos = 8; pos < chunk.size(); ++pos) {  // bytes 0-7 (first index) are the reader's to check
    std::string bad = chunk;
    bad[pos] ^= 0x40;
    ChunkDecoder dec;
    Status s = dec.Load(bad);
    std::vector<Event> out;
    if (s.ok()) s = dec.Decode(dec.event_count(), &out);
    if (!s.ok()) {
      EXPECT_EQ(s.code(), Status::Code::kCorruption) << s.ToString();
      ++detected;
      continue;
    }
    ASSERT_EQ(out.size(), events.size()) << "flip at byte " << pos;
    for (size_t i = 0; i < events.size(); ++i) ExpectSame(events[i], out[i]);
  }
  EXPECT_GT(detected, (chunk.size() - 8) * 99 / 100);
}

TEST(ChunkCodec, GarbageIsCorruptionNotACrash) {
  std::mt19937_64 rng(4);
  for (int trial = 0; trial < 2000; ++trial) {
    std::string junk(rng() % 200, '\0');
    for (auto& c : junk) c = static_cast<char>(rng());
    ChunkDecoder dec;
    Status s = dec.Load(junk);
    if (s.ok()) {
      std::vector<Event> out;
      s = dec.Decode(dec.event_count(), &out);
    }
    EXPECT_FALSE(s.ok());
  }
}

// Found by the fuzzer: a header and zstd frame header that both claim a 4 GB
// payload for 7,302 events made Load allocate it before decompressing.
TEST(ChunkCodec, HugeClaimedSizeIsCorruptionWithoutAllocating) {
  const unsigned char input[] = {0x00, 0x00, 0x00, 0x2c, 0xff, 0xff, 0xfb, 0xff, 0x86, 0x1c,
                                 0x00, 0x00, 0x8a, 0xfd, 0xff, 0xfb, 0x28, 0xb5, 0x2f, 0xfd,
                                 0x86, 0x1c, 0x00, 0x00, 0x8a, 0xfd, 0xff, 0xfb, 0x23};
  ChunkDecoder dec;
  Status s = dec.Load(std::string_view(reinterpret_cast<const char*>(input), sizeof(input)));
  EXPECT_EQ(s.code(), Status::Code::kCorruption) << s.ToString();
  EXPECT_NE(s.ToString().find("exceeds what 7302 events can take"), std::string::npos) << s.ToString();
}

// --- Repeated runs (ChunkEncoder::AddRepeat) ---

// Two encoders fed the same events, one through AddRepeat (templates on),
// the other through AddRun: every chunk they finish must be the same bytes.
class TwoEncoders {
 public:
  TwoEncoders() { plain_.set_use_templates(false); }
  void Run(const std::shared_ptr<const RepeatedRun>& run) {
    fast_.AddRepeat(run);
    plain_.AddRun(run->events.data(), run->events.size());
    events_ += run->events.size();
  }
  void Other(const Event& e) {
    fast_.Add(e);
    plain_.Add(e);
    ++events_;
  }
  void Finish() {
    std::string a, b;
    ASSERT_TRUE(fast_.Finish(first_, 3, false, &a).ok());
    ASSERT_TRUE(plain_.Finish(first_, 3, false, &b).ok());
    // Not ASSERT_EQ: a failure would print both chunks, kilobytes of binary.
    ASSERT_TRUE(a == b) << "chunk " << chunks_ << " differs (" << a.size() << " and " << b.size() << " bytes)";
    ++chunks_;
    first_ = events_;
  }
  uint64_t hits() const { return fast_.template_hits(); }

 private:
  ChunkEncoder fast_, plain_;
  uint64_t first_ = 0, events_ = 0;
  int chunks_ = 0;
};

Event Access(uint32_t tid, EventKind kind, uint64_t object, uint64_t aux, uint64_t pc, uint8_t mode = 0) {
  return test::MakeEvent(tid, kind, object, pc, aux, mode);
}

// Pcs of a few loop bodies; the last two share a slot of the encoder's site
// table (the hash of chunk_codec.cc's SiteTable), so that runs also meet a
// slot that another pc of the same run wrote.
std::vector<uint64_t> BodyPcs() {
  std::vector<uint64_t> pcs;
  for (uint64_t pc = 0x401000; pc < 0x401000 + 4 * 24; pc += 4) pcs.push_back(pc);
  auto slot = [](uint64_t pc) { return (pc * 0x9e3779b97f4a7c15ull) >> 52; };
  const uint64_t first = pcs.back();
  for (uint64_t pc = first + 4;; pc += 4)
    if (slot(pc) == slot(first)) {
      pcs.push_back(pc);
      break;
    }
  return pcs;
}

std::shared_ptr<const RepeatedRun> Shared(const std::vector<Event>& events) {
  auto run = std::make_shared<RepeatedRun>();
  run->events = events;
  return run;
}

// A thread's loop body: reads and writes of a block of words from a few pcs,
// now and then an atomic (with its order), a call (another object class) or a
// free of another size.
std::vector<Event> Body(std::mt19937_64& rng, uint32_t tid, size_t len, const std::vector<uint64_t>& pcs) {
  const uint64_t base = 0x7f0000000000ull + tid * 0x100000ull + (rng() % 16) * 0x1000;
  std::vector<Event> run;
  for (size_t i = 0; i < len; ++i) {
    const uint64_t pc = pcs[(i + rng() % 2) % pcs.size()];
    const uint64_t word = base + 8 * (i % 64);
    switch (rng() % 12) {
      case 0: run.push_back(Access(tid, EventKind::kAtomicRmw, word, 8, pc, 5)); break;
      case 1: run.push_back(Access(tid, EventKind::kFuncEntry, 0x402000 + (rng() % 4) * 64, 0, pc)); break;
      case 2: run.push_back(Access(tid, EventKind::kFree, word, rng() % 2 ? 64 : 0, pc)); break;
      default: run.push_back(Access(tid, i % 2 ? EventKind::kWrite : EventKind::kRead, word, i % 5 == 0 ? 4 : 8, pc));
    }
  }
  return run;
}

// Threads repeat their loop bodies between lock events, and sometimes a run
// differs from the last one by one address, pc, size, kind or order, by its
// length, or in full; chunks end at random points between runs.
TEST(ChunkCodecRepeats, TemplatesEncodeWhatAddRunEncodes) {
  std::mt19937_64 rng(11);
  const std::vector<uint64_t> pcs = BodyPcs();
  constexpr uint32_t kThreads = 4;
  std::vector<std::vector<Event>> last(kThreads);
  std::vector<std::shared_ptr<const RepeatedRun>> shared(kThreads);  // as the merger hands them on
  TwoEncoders enc;
  int varied[8] = {};
  for (int step = 0; step < 20000; ++step) {
    const uint32_t tid = static_cast<uint32_t>(rng() % kThreads);
    std::vector<Event>& run = last[tid];
    const int change = run.empty() ? 7 : static_cast<int>(rng() % 16);
    if (change < 8) ++varied[change];
    if (!run.empty() && change < 7) {
      Event& e = run[rng() % run.size()];
      switch (change) {
        case 0: e.object += 8; break;
        case 1: e.pc = pcs[rng() % pcs.size()]; break;
        case 2: e.aux = e.aux == 8 ? 4 : 8; break;
        case 3: e.kind = e.kind == EventKind::kRead ? EventKind::kWrite : EventKind::kRead; break;
        case 4: e.mode = static_cast<uint8_t>((e.mode + 1) % 6); break;
        case 5: run.pop_back(); break;
        case 6: run.push_back(run.front()); break;
      }
      if (run.empty()) run = Body(rng, tid, 1, pcs);
      shared[tid] = nullptr;
    } else if (change == 7) {
      run = Body(rng, tid, 1 + rng() % 300, pcs);
      shared[tid] = nullptr;
    }
    // The same object while the run stays the same, or now and then an equal
    // one made apart (the merger makes one per segment it keeps).
    if (shared[tid] == nullptr || rng() % 8 == 0) shared[tid] = Shared(run);
    // The lock events around the run: the sync class, other pcs, other threads
    // in between now and then.
    const uint64_t lock = 0x600000 + tid * 64;
    enc.Other(Access(tid, EventKind::kAcquire, lock, 0, 0x403000));
    enc.Run(shared[tid]);
    if (rng() % 3 == 0) enc.Other(Access((tid + 1) % kThreads, EventKind::kRead, 0x9000, 8, pcs[0]));
    enc.Other(Access(tid, EventKind::kRelease, lock, 0, 0x403040));
    if (rng() % 50 == 0) enc.Finish();
  }
  enc.Finish();
  for (int c = 0; c < 8; ++c) EXPECT_GT(varied[c], 100) << "variation " << c;
  // The templates were used, not only kept (a run gets one the second time
  // it comes, and changes in 7 of 16 steps here).
  EXPECT_GT(enc.hits(), 3000u);
}

// Random events (any kind, thread, mode, pc, the null pc too) in pieces, some
// of them given twice or more in a row, some with more than one thread.
TEST(ChunkCodecRepeats, RandomRunsEncodeAsAddRunDoes) {
  std::mt19937_64 rng(12);
  std::vector<Event> events = RandomEvents(60000, 13);
  for (size_t i = 0; i < events.size(); i += 97) events[i].pc = 0;
  TwoEncoders enc;
  size_t pos = 0;
  while (pos < events.size()) {
    const size_t n = std::min<size_t>(1 + rng() % 200, events.size() - pos);
    std::vector<Event> run(events.begin() + static_cast<ptrdiff_t>(pos),
                           events.begin() + static_cast<ptrdiff_t>(pos + n));
    // One thread's run, as the merger gives them, or a mixed one.
    if (rng() % 4 != 0)
      for (Event& e : run) e.tid = run[0].tid;
    // Few sites in half of them (a loop), as many as events in the others.
    if (rng() % 2 == 0)
      for (Event& e : run) e.pc = e.pc == 0 ? 0 : 0x401000 + (e.pc % 16) * 4;
    std::shared_ptr<const RepeatedRun> same = Shared(run);
    for (int times = 1 + static_cast<int>(rng() % 3); times > 0; --times) enc.Run(rng() % 2 ? same : Shared(run));
    if (rng() % 20 == 0) enc.Finish();
    pos += n;
  }
  enc.Finish();
  EXPECT_GT(enc.hits(), 0u);
}

// A run whose every event has a site of its own (an unrolled loop) depends on
// the state before it nearly everywhere: no template, encoded as AddRun does.
TEST(ChunkCodecRepeats, RunsOfDistinctSitesGetNoTemplate) {
  std::vector<Event> events;
  for (uint64_t i = 0; i < 100; ++i)
    events.push_back(Access(3, EventKind::kWrite, 0x7f0000 + 8 * i, 8, 0x401000 + 16 * i));
  const std::shared_ptr<const RepeatedRun> run = Shared(events);
  TwoEncoders enc;
  for (int i = 0; i < 10; ++i) enc.Run(run);
  enc.Finish();
  EXPECT_EQ(enc.hits(), 0u);
}

}  // namespace
}  // namespace seer::store
