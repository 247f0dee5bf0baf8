// RingMerger::AddExternal: events from outside the rings (the futex
// tracepoints of a preloaded recording) placed in their thread at their stamp
// and ordered among themselves by their numbers, across batches.
#include <gtest/gtest.h>

#include <vector>

#include "recorder/merge/ring_merger.h"
#include "seer/ring_record.h"
#include "tests/support/shm_area.h"

namespace seer::recorder {
namespace {

void Plain(RingWords* w, EventKind kind, uint64_t addr) {
  w->push_back(rt::ShortHead(static_cast<uint8_t>(kind), 4, addr));
  w->push_back(0x1000);
}

Event Futex(EventKind kind, uint64_t word) {
  Event e;
  e.kind = kind;
  e.object = word;
  e.pc = 0x3000;
  return e;
}

struct Out {
  std::vector<Event> events;
  RingMerger::Sink sink() {
    return [this](const Event& e) {
      events.push_back(e);
      return Status::Ok();
    };
  }
  // Position of the event of `kind` on `object`.
  size_t At(EventKind kind, uint64_t object) const {
    for (size_t i = 0; i < events.size(); ++i)
      if (events[i].kind == kind && events[i].object == object) return i;
    ADD_FAILURE() << "no event of kind " << static_cast<int>(kind) << " on " << object;
    return events.size();
  }
};

// Ring 0: read 0x100, [wake F], write 0x200. Ring 1: read 0x300, [wait F],
// write 0x400. Ring 1's words arrive first and its wait is given before its
// place was copied; the wake comes in the next batch.
TEST(ExternalEventsTest, WaitFollowsItsWakeAndSitsAtItsStamp) {
  seer::test::ShmArea area(2, 64);
  RingMerger merger(area.shm);
  Out out;
  const uint64_t futex = 0xf000;

  RingBatch first;
  first.words.resize(2);
  Plain(&first.words[1], EventKind::kRead, 0x300);  // words 0-1 of ring 1
  merger.AddExternal(1, 2, /*number=*/1, Futex(EventKind::kWait, futex));
  ASSERT_TRUE(merger.Add(&first, out.sink()).ok());
  // The read is out; the wait waits for wake number 0.
  ASSERT_EQ(out.events.size(), 1u);

  RingBatch second;
  second.words.resize(2);
  Plain(&second.words[0], EventKind::kRead, 0x100);
  Plain(&second.words[0], EventKind::kWrite, 0x200);
  Plain(&second.words[1], EventKind::kWrite, 0x400);
  merger.AddExternal(0, 2, /*number=*/0, Futex(EventKind::kSignal, futex));
  second.final = true;
  ASSERT_TRUE(merger.Add(&second, out.sink()).ok());
  ASSERT_EQ(out.events.size(), 6u);

  const size_t wake = out.At(EventKind::kSignal, futex), wait = out.At(EventKind::kWait, futex);
  EXPECT_LT(out.At(EventKind::kRead, 0x100), wake);  // program order of ring 0
  EXPECT_LT(wake, out.At(EventKind::kWrite, 0x200));
  EXPECT_LT(wake, wait);                             // the wake's number comes first
  EXPECT_LT(out.At(EventKind::kRead, 0x300), wait);  // program order of ring 1
  EXPECT_LT(wait, out.At(EventKind::kWrite, 0x400));
  EXPECT_EQ(out.events[wake].tid, out.events[out.At(EventKind::kRead, 0x100)].tid);
  EXPECT_EQ(out.events[wait].tid, out.events[out.At(EventKind::kRead, 0x300)].tid);
  EXPECT_EQ(merger.external_late(), 0u);
  EXPECT_EQ(merger.order_gaps(), 0u);
}

// An external event past the ring's last word (the thread's last act) is
// delivered at the end; one whose place was already delivered is counted late.
TEST(ExternalEventsTest, AtTheEndAndLate) {
  seer::test::ShmArea area(1, 64);
  RingMerger merger(area.shm);
  Out out;
  RingBatch first;
  first.words.resize(1);
  Plain(&first.words[0], EventKind::kRead, 0x100);
  Plain(&first.words[0], EventKind::kRead, 0x200);
  ASSERT_TRUE(merger.Add(&first, out.sink()).ok());
  ASSERT_EQ(out.events.size(), 2u);
  merger.AddExternal(0, 2, 0, Futex(EventKind::kSignal, 0xa));  // late: words 0-3 are out
  merger.AddExternal(0, 9, 1, Futex(EventKind::kSignal, 0xb));  // beyond what the thread wrote
  RingBatch last;
  last.words.resize(1);
  last.final = true;
  ASSERT_TRUE(merger.Add(&last, out.sink()).ok());
  ASSERT_EQ(out.events.size(), 4u);
  EXPECT_EQ(out.events[2].object, 0xau);
  EXPECT_EQ(out.events[3].object, 0xbu);
  EXPECT_EQ(merger.external_late(), 1u);
}

}  // namespace
}  // namespace seer::recorder
