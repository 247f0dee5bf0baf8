// AccessJoiner on hand-written inputs: ring records (through a real RingMerger)
// and stamped sync events, checking where each thread's records land.
#include "recorder/ebpf/access_joiner.h"

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "bpf/sync_event.h"
#include "seer/ring_record.h"
#include "tests/support/shm_area.h"
#include "tests/support/trace_builder.h"

namespace seer::recorder {
namespace {

constexpr uint32_t kRings = 2;
constexpr uint64_t kRingWords = 64;
constexpr pid_t kMainOs = 100, kChildOs = 101;

// The shared area as the runtime leaves it: ring 0 is the main thread's, ring 1 the child's.
struct Area : seer::test::ShmArea {
  Area() : ShmArea(kRings, kRingWords) {
    rt::RingDescs(shm)[0].os_tid = kMainOs;
    rt::RingDescs(shm)[1].os_tid = kChildOs;
  }
};

// A read of `addr`: one short record, two words.
void Read(RingWords* w, uint64_t addr) {
  w->push_back(rt::ShortHead(static_cast<uint8_t>(EventKind::kRead), 4, addr));
  w->push_back(0x1000);
}

Event Sync(EventKind kind, uint32_t tid, uint64_t object = 0) { return test::MakeEvent(tid, kind, object); }

class AccessJoinerTest : public ::testing::Test {
 protected:
  AccessJoinerTest()
      : rings_(area_.shm),
        joiner_(
            area_.shm, &rings_, [this](pid_t os_tid) { return held_.count(os_tid) > 0; },
            [this](const Event& e) {
              out_.push_back(e);
              return Status::Ok();
            }) {}

  // Hands `batch`, copied out at time `collected`, to the ring merger and its events to the joiner.
  void Deliver(RingBatch* batch, uint64_t collected = 1000) {
    ASSERT_TRUE(rings_
                    .Add(batch,
                         [&](const Event& e) {
                           joiner_.AddRuntime(e, rings_.origin().ring, rings_.origin().word, collected);
                           return Status::Ok();
                         })
                    .ok());
  }

  // The output as "tid:kind:object" strings.
  std::vector<std::string> Out() const {
    std::vector<std::string> s;
    for (const Event& e : out_)
      s.push_back(std::to_string(e.tid) + ":" + std::string(EventKindName(e.kind)) + ":" + std::to_string(e.object));
    return s;
  }

  Area area_;
  std::set<pid_t> held_;  // threads the eBPF merger holds sync events of
  RingMerger rings_;
  std::vector<Event> out_;
  AccessJoiner joiner_;
};

TEST_F(AccessJoinerTest, RecordsBelowTheStampGoFirstTheRestAfter) {
  joiner_.AddSync(Sync(EventKind::kThreadBegin, 0), kMainOs, 0);
  RingBatch b;
  b.words.resize(1);
  for (uint64_t a : {1, 2, 3, 4}) Read(&b.words[0], a);  // words 0, 2, 4, 6
  Deliver(&b);
  joiner_.AddSync(Sync(EventKind::kAcquire, 0, 0x50), kMainOs, 4);  // after reads 1 and 2
  joiner_.AddSync(Sync(EventKind::kRelease, 0, 0x50), kMainOs, 8);  // after all four
  ASSERT_TRUE(joiner_.Pump(false).ok());
  EXPECT_EQ(Out(), (std::vector<std::string>{"0:thread_begin:0", "0:read:1", "0:read:2", "0:acquire:80", "0:read:3",
                                             "0:read:4", "0:release:80"}));
}

TEST_F(AccessJoinerTest, SyncEventWaitsUntilItsThreadsRecordsAreDelivered) {
  joiner_.AddSync(Sync(EventKind::kThreadBegin, 0), kMainOs, 0);
  joiner_.AddSync(Sync(EventKind::kAcquire, 0, 0x50), kMainOs, 4);
  ASSERT_TRUE(joiner_.Pump(false).ok());
  EXPECT_EQ(Out(), (std::vector<std::string>{"0:thread_begin:0"}));  // the reads before it are not in yet
  RingBatch b;
  b.words.resize(1);
  Read(&b.words[0], 1);
  Deliver(&b);
  ASSERT_TRUE(joiner_.Pump(false).ok());
  EXPECT_EQ(out_.size(), 2u);  // one of its two reads: still waiting
  RingBatch c;
  c.words.resize(1);
  Read(&c.words[0], 2);
  Read(&c.words[0], 3);
  Deliver(&c);
  ASSERT_TRUE(joiner_.Pump(false).ok());
  // Read 3 (word 4) is after the acquire; no later sync event yet, and the
  // watermark has not passed its collection: a sync event could still come.
  EXPECT_EQ(Out(), (std::vector<std::string>{"0:thread_begin:0", "0:read:1", "0:read:2", "0:acquire:80"}));
  joiner_.SetWatermark(1000);
  ASSERT_TRUE(joiner_.Pump(false).ok());
  EXPECT_EQ(Out().back(), "0:read:3");
}

// The atomics of message passing: the child's store precedes main's load in
// the ring merger's order (their address's domain). Main's acquire must not
// overtake the child's store just because the child's next sync event is not
// known yet: it waits for the watermark, then both keep the merger's order.
TEST_F(AccessJoinerTest, RingMergerOrderIsKeptWhileItsPlaceIsUnknown) {
  joiner_.AddSync(Sync(EventKind::kThreadBegin, 0), kMainOs, 0);
  joiner_.AddSync(Sync(EventKind::kFork, 0, 1), kMainOs, 0);
  joiner_.AddSync(Sync(EventKind::kThreadBegin, 1), kChildOs, 0);
  RingBatch b;
  b.words.resize(2);
  Read(&b.words[1], 10);  // the child's "store": first in the merger's order
  Read(&b.words[0], 1);   // main's "load"
  // (Plain records come out ring by ring; put the child's first.)
  std::swap(b.words[0], b.words[1]);
  rt::RingDescs(area_.shm)[0].os_tid = kChildOs;
  rt::RingDescs(area_.shm)[1].os_tid = kMainOs;
  Deliver(&b, 5000);
  joiner_.AddSync(Sync(EventKind::kAcquire, 0, 0x50), kMainOs, 2);
  ASSERT_TRUE(joiner_.Pump(false).ok());
  EXPECT_EQ(Out(), (std::vector<std::string>{"0:thread_begin:0", "0:fork:1", "1:thread_begin:0"}));
  joiner_.SetWatermark(5000);
  ASSERT_TRUE(joiner_.Pump(false).ok());
  EXPECT_EQ(Out(), (std::vector<std::string>{"0:thread_begin:0", "0:fork:1", "1:thread_begin:0", "1:read:10",
                                             "0:read:1", "0:acquire:80"}));
  EXPECT_EQ(joiner_.stats().reordered, 0u);
}

// A record of a thread whose earlier sync event the eBPF merger still holds
// cannot go first: the sync event goes without it (counted as a reordering).
TEST_F(AccessJoinerTest, HeldSyncEventsMakeOtherThreadsRecordsWait) {
  joiner_.AddSync(Sync(EventKind::kThreadBegin, 0), kMainOs, 0);
  joiner_.AddSync(Sync(EventKind::kFork, 0, 1), kMainOs, 0);
  joiner_.AddSync(Sync(EventKind::kThreadBegin, 1), kChildOs, 0);
  RingBatch b;
  b.words.resize(2);
  Read(&b.words[1], 10);
  Read(&b.words[0], 1);
  std::swap(b.words[0], b.words[1]);
  rt::RingDescs(area_.shm)[0].os_tid = kChildOs;
  rt::RingDescs(area_.shm)[1].os_tid = kMainOs;
  Deliver(&b);
  held_.insert(kChildOs);
  joiner_.SetWatermark(1000);
  joiner_.AddSync(Sync(EventKind::kAcquire, 0, 0x50), kMainOs, 2);
  ASSERT_TRUE(joiner_.Pump(false).ok());
  EXPECT_EQ(Out(),
            (std::vector<std::string>{"0:thread_begin:0", "0:fork:1", "1:thread_begin:0", "0:read:1", "0:acquire:80"}));
  EXPECT_EQ(joiner_.stats().reordered, 1u);
}

TEST_F(AccessJoinerTest, OtherThreadsRecordsKeepTheirPlaceBetweenTheirOwnSyncEvents) {
  joiner_.AddSync(Sync(EventKind::kThreadBegin, 0), kMainOs, 0);
  joiner_.AddSync(Sync(EventKind::kFork, 0, 1), kMainOs, 2);
  joiner_.AddSync(Sync(EventKind::kThreadBegin, 1), kChildOs, 0);
  RingBatch b;
  b.words.resize(2);
  Read(&b.words[0], 1);   // main, before the fork
  Read(&b.words[1], 10);  // child, before its release
  Read(&b.words[0], 2);   // main, after the fork, before its acquire
  Read(&b.words[1], 11);  // child, after its release
  Deliver(&b);
  joiner_.AddSync(Sync(EventKind::kAcquire, 1, 0x50), kChildOs, 0);  // the child's first event
  joiner_.AddSync(Sync(EventKind::kRelease, 1, 0x50), kChildOs, 2);
  joiner_.AddSync(Sync(EventKind::kAcquire, 0, 0x50), kMainOs, 4);
  joiner_.AddSync(Sync(EventKind::kThreadEnd, 1), kChildOs, SEER_STAMP_NONE);
  rt::RingDescs(area_.shm)[1].head.store(4);
  ASSERT_TRUE(joiner_.Pump(false).ok());
  // Main's read 2 may go as soon as its fork is out (its acquire, stamped
  // above it, is known): it keeps its place ahead of the child's read 10 in the
  // ring merger's order. The child's read 11 follows its release and may go
  // once its end is known. The end itself needs the ring closed.
  const std::vector<std::string> before_end = {"0:thread_begin:0", "0:read:1", "0:fork:1",  "1:thread_begin:0",
                                               "1:acquire:80",     "0:read:2", "1:read:10", "1:release:80",
                                               "0:acquire:80",     "1:read:11"};
  EXPECT_EQ(Out(), before_end);
  rt::RingDescs(area_.shm)[1].state.store(rt::kRingEnded);
  ASSERT_TRUE(joiner_.Pump(false).ok());
  ASSERT_EQ(out_.size(), before_end.size() + 1);
  EXPECT_EQ(Out().back(), "1:thread_end:0");
  EXPECT_EQ(joiner_.stats().orphaned, 0u);
}

TEST_F(AccessJoinerTest, RecordsOfAThreadNeverBegunAreCountedNotEmitted) {
  RingBatch b;
  b.words.resize(2);
  Read(&b.words[1], 10);
  b.final = true;
  Deliver(&b);
  ASSERT_TRUE(joiner_.Pump(true).ok());
  EXPECT_TRUE(out_.empty());
  EXPECT_EQ(joiner_.stats().orphaned, 1u);
}

}  // namespace
}  // namespace seer::recorder
