// The spool arena hands out blocks first in, first out, reclaims them from the
// oldest end, wraps around, and falls back to malloc when full: copied ring
// words must never share memory with words still in use.
#include "recorder/merge/spool_arena.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <vector>

namespace seer::recorder {
namespace {

constexpr uint64_t kEighth = SpoolArena::kCapacity / 8;

TEST(SpoolArena, BlocksFollowEachOtherAndComeBackWhenAllAreFree) {
  SpoolArena& a = SpoolArena::Get();
  ASSERT_EQ(a.span_bytes(), 0u);
  char* p = static_cast<char*>(a.Allocate(100));
  char* q = static_cast<char*>(a.Allocate(100));
  ASSERT_TRUE(a.InArena(p));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
  EXPECT_GE(q, p + 100);  // no overlap
  std::memset(p, 1, 100);
  std::memset(q, 2, 100);
  EXPECT_EQ(p[99], 1);
  a.Free(q);  // out of order: the oldest block still holds the front
  EXPECT_GT(a.span_bytes(), 0u);
  a.Free(p);
  EXPECT_EQ(a.span_bytes(), 0u);
  EXPECT_EQ(a.Allocate(8), p);  // empty: back at the front, where pages are warm
  a.Free(p);
}

TEST(SpoolArena, WrapsAroundAndFallsBackToMallocWhenFull) {
  // Only the headers are touched: the blocks cost address space, not memory.
  SpoolArena& a = SpoolArena::Get();
  ASSERT_EQ(a.span_bytes(), 0u);
  std::vector<void*> blocks;
  for (int i = 0; i < 7; ++i) blocks.push_back(a.Allocate(kEighth - 1024));
  for (void* b : blocks) ASSERT_TRUE(a.InArena(b));
  // Less than an eighth is left at the end, and the front is in use: malloc.
  void* outside = a.Allocate(kEighth + kEighth / 2);
  EXPECT_FALSE(a.InArena(outside));
  // The two oldest blocks released: the arena wraps to the front.
  a.Free(blocks[0]);
  a.Free(blocks[1]);
  void* wrapped = a.Allocate(kEighth + kEighth / 2);
  EXPECT_TRUE(a.InArena(wrapped));
  EXPECT_EQ(wrapped, blocks[0]);
  // Between the wrapped block and the oldest block in use there is too little room.
  void* tight = a.Allocate(kEighth);
  EXPECT_FALSE(a.InArena(tight));
  a.Free(outside);
  a.Free(tight);
  for (size_t i = 2; i < blocks.size(); ++i) a.Free(blocks[i]);
  EXPECT_GT(a.span_bytes(), 0u);  // the wrapped block is still in use
  a.Free(wrapped);
  EXPECT_EQ(a.span_bytes(), 0u);
}

TEST(SpoolArena, WrapsEarlyOnceTheFrontHasRoomForSeveralTimesWhatIsInUse) {
  // A steady stream (the merger keeps up): blocks are freed a little after they
  // were handed out, and the front is reused long before the end of the arena,
  // so the memory touched stays a few times what is in use.
  SpoolArena& a = SpoolArena::Get();
  ASSERT_EQ(a.span_bytes(), 0u);
  constexpr size_t kBlock = 1 << 16;
  std::vector<char*> live;
  char* lowest = nullptr;
  char* highest = nullptr;
  for (int i = 0; i < 200; ++i) {
    char* b = static_cast<char*>(a.Allocate(kBlock));
    ASSERT_TRUE(a.InArena(b));
    lowest = lowest == nullptr || b < lowest ? b : lowest;
    highest = highest == nullptr || b > highest ? b : highest;
    live.push_back(b);
    if (live.size() > 4) {  // four blocks in flight
      a.Free(live.front());
      live.erase(live.begin());
    }
  }
  // Without the early wrap the 200 blocks would span 200 block sizes.
  EXPECT_LT(static_cast<size_t>(highest - lowest), 40 * (kBlock + 64));
  for (char* b : live) a.Free(b);
  EXPECT_EQ(a.span_bytes(), 0u);
}

TEST(SpoolArena, AnExtentBoundsTheMemoryTouchedWhileAnOldBlockIsKept) {
  // The service's case: one block stays in use (a ring that records rarely)
  // while a steady stream flows past it. The arena cannot wrap before the kept
  // block, so without an extent the stream walks on through fresh pages; with
  // one it stays inside it, and what does not fit comes from malloc.
  SpoolArena& a = SpoolArena::Get();
  ASSERT_EQ(a.span_bytes(), 0u);
  constexpr uint64_t kExtent = 64ull << 20;
  a.SetExtent(kExtent);
  char* kept = static_cast<char*>(a.Allocate(4096));
  ASSERT_TRUE(a.InArena(kept));
  constexpr size_t kBlock = 1 << 16;
  std::vector<char*> live;
  char* highest = kept;
  int from_malloc = 0;
  for (int i = 0; i < 4096; ++i) {  // 256 MiB in all, four times the extent
    char* b = static_cast<char*>(a.Allocate(kBlock));
    if (a.InArena(b))
      highest = std::max(highest, b);
    else
      ++from_malloc;
    live.push_back(b);
    if (live.size() > 4) {
      a.Free(live.front());
      live.erase(live.begin());
    }
  }
  EXPECT_LE(static_cast<uint64_t>(highest + kBlock - kept), kExtent);
  EXPECT_GT(from_malloc, 0);
  for (char* b : live) a.Free(b);
  a.Free(kept);
  EXPECT_EQ(a.span_bytes(), 0u);
  a.SetExtent(SpoolArena::kCapacity);
}

TEST(SpoolArena, VectorsOfRingWordsUseIt) {
  std::vector<uint64_t, SpoolAllocator<uint64_t>> words(1000, 7);
  EXPECT_TRUE(SpoolArena::Get().InArena(words.data()));
  words.insert(words.end(), 5000, 9);  // grows: a new block, the old one released
  EXPECT_EQ(words[999], 7u);
  EXPECT_EQ(words[5999], 9u);
  words.clear();
  words.shrink_to_fit();
  EXPECT_EQ(SpoolArena::Get().span_bytes(), 0u);
}

}  // namespace
}  // namespace seer::recorder
