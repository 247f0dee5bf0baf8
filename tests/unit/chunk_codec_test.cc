#include "store/chunk_codec.h"

#include <gtest/gtest.h>

#include <random>

namespace seer {
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
    e.pc = 0x401000 + (i % 4) * 16;                                // a loop of four accesses
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
  const unsigned char input[] = {0x00, 0x00, 0x00, 0x2c, 0xff, 0xff, 0xfb, 0xff, 0x86, 0x1c, 0x00, 0x00, 0x8a, 0xfd,
                                 0xff, 0xfb, 0x28, 0xb5, 0x2f, 0xfd, 0x86, 0x1c, 0x00, 0x00, 0x8a, 0xfd, 0xff, 0xfb,
                                 0x23};
  ChunkDecoder dec;
  Status s = dec.Load(std::string_view(reinterpret_cast<const char*>(input), sizeof(input)));
  EXPECT_EQ(s.code(), Status::Code::kCorruption) << s.ToString();
  EXPECT_NE(s.ToString().find("exceeds what 7302 events can take"), std::string::npos) << s.ToString();
}

}  // namespace
}  // namespace seer
