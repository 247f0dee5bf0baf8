// RingMerger on hand-written rings: the topological merge of per-thread streams
// with per-domain numbers (locks, atomics, the global domain), the "after" word
// of a cond-wait end, records split across batches, numbers missing at the end,
// and damaged rings.
#include "runtime/drain/ring_merger.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <vector>

#include "runtime/ring_record.h"
#include "tests/support/shm_area.h"

namespace seer {
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
  for (uint64_t x : {rt::LongHead(static_cast<uint8_t>(kind), 0), object, uint64_t{0}, uint64_t{0x2000},
                     rt::OrderWord(domain, number), uint64_t{0}})
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
  for (uint64_t x : {rt::LongHead(static_cast<uint8_t>(EventKind::kCondWaitEnd), 0), c, m,
                     uint64_t{0x2000}, rt::OrderWord(rt::LockDomain(m), 1), uint64_t{1}})
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

TEST(RingMergerTest, DamagedRingsAreReported) {
  {
    Area a;
    RingMerger merger(a.shm);
    Out out;
    RingBatch b;
    b.words.resize(1);
    Lock(&b.words[0], EventKind::kAcquire, 0x5000, 0);
    Lock(&b.words[0], EventKind::kAcquire, 0x5000, 0);  // the same number twice
    b.final = true;
    Status s = merger.Add(&b, out.sink());
    EXPECT_FALSE(s.ok());
    EXPECT_NE(s.ToString().find("delivered twice"), std::string::npos) << s.ToString();
  }
  {
    Area a;
    RingMerger merger(a.shm);
    Out out;
    RingBatch b;
    b.words.resize(1);
    b.words[0] = {rt::LongHead(static_cast<uint8_t>(EventKind::kAcquire), 0), 1, 2};  // cut short
    b.final = true;
    Status s = merger.Add(&b, out.sink());
    EXPECT_FALSE(s.ok());
    EXPECT_NE(s.ToString().find("cut short"), std::string::npos) << s.ToString();
  }
  {
    Area a;
    RingMerger merger(a.shm);
    Out out;
    RingBatch b;
    b.words.resize(1);
    Ordered(&b.words[0], EventKind::kSignal, 1, rt::kDomains + 3, 0);
    b.final = true;
    Status s = merger.Add(&b, out.sink());
    EXPECT_FALSE(s.ok());
    EXPECT_NE(s.ToString().find("out of range"), std::string::npos) << s.ToString();
  }
}

}  // namespace
}  // namespace seer
