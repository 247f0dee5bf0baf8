// RingMerger's side of ring reuse (docs/runtime.md, "Ring reuse") on
// hand-written rings: when a ring goes back to the runtime (its thread ended,
// was joined or detached, and everything it wrote was delivered), that the
// ring's next thread is a new thread (tid, parent, os_tid), that a join merged
// after the give-back still names the thread that ended, and that the thread
// table lists every thread.
#include <gtest/gtest.h>

#include <vector>

#include "recorder/merge/ring_merger.h"
#include "seer/ring_record.h"
#include "tests/support/shm_area.h"

namespace seer::recorder {
namespace {

constexpr uint32_t kMain = 0, kWorker = 1;

// A global-domain record (fork, join, thread begin and end).
void Global(RingWords* w, EventKind kind, uint64_t object, uint64_t number) {
  for (uint64_t x : {rt::LongHead(static_cast<uint8_t>(kind), 0, object, 0, 0), uint64_t{0x2000},
                     rt::OrderWord(rt::kGlobalDomain, number)})
    w->push_back(x);
}
void Write(RingWords* w, uint64_t addr) {
  w->push_back(rt::ShortHead(static_cast<uint8_t>(EventKind::kWrite), 8, addr));
  w->push_back(0x1000);
}

class RingReuseTest : public ::testing::Test {
 protected:
  RingReuseTest() : area_(2, 64), merger_(area_.shm) {
    merger_.ReuseRings();
    for (uint32_t r = 0; r < 2; ++r) rt::RingDescs(area_.shm)[r].parent = -1;
  }

  rt::RingDesc& Desc(uint32_t ring) { return rt::RingDescs(area_.shm)[ring]; }

  // Adds a batch of ring words (main's, the worker's); the worker's words
  // also move its published head on, as the runtime's would.
  void Add(RingWords main, RingWords worker, bool final = false) {
    Desc(kWorker).head.fetch_add(worker.size());
    RingBatch b;
    b.final = final;
    b.words.resize(2);
    b.words[kMain] = std::move(main);
    b.words[kWorker] = std::move(worker);
    ASSERT_TRUE(merger_
                    .Add(&b,
                         [this](const Event& e) {
                           events_.push_back(e);
                           return Status::Ok();
                         })
                    .ok());
  }

  // The worker thread's end as the runtime leaves it: ended, created, and
  // (`joined`) joined or detached.
  void EndWorker(bool joined) {
    Desc(kWorker).state.store(rt::kRingEnded);
    Desc(kWorker).released.store(rt::kReleaseCreated | rt::kReleaseEnded | (joined ? rt::kReleaseJoined : 0u));
    if (joined) area_.shm->coming_rings.fetch_add(1);
  }

  // The runtime's claim of the returned ring for a new thread.
  void ClaimAgain(int64_t os_tid) {
    ASSERT_EQ(area_.shm->returned_rings.load(), 1u);
    area_.shm->returned_rings.store(0);
    Desc(kWorker).state.store(rt::kRingRunning);
    Desc(kWorker).released.store(0);
    Desc(kWorker).os_tid = os_tid;
  }

  // The first worker thread's whole life (global numbers 0 to 2): main forks
  // it, it begins, writes, ends. Its os_tid is 101.
  void FirstWorkerLife(RingWords* main, RingWords* worker) {
    Global(main, EventKind::kFork, kWorker, 0);
    Global(worker, EventKind::kThreadBegin, 0, 1);
    Write(worker, 0x5000);
    Global(worker, EventKind::kThreadEnd, 0, 2);
    Desc(kWorker).os_tid = 101;
  }

  const Event* Find(EventKind kind, uint64_t number_in_order) const {
    uint64_t seen = 0;
    for (const Event& e : events_)
      if (e.kind == kind && seen++ == number_in_order) return &e;
    return nullptr;
  }

  test::ShmArea area_;
  RingMerger merger_;
  std::vector<Event> events_;
};

TEST_F(RingReuseTest, ARingGoesBackOnlyOnceItsThreadIsEndedJoinedAndDelivered) {
  RingWords main, worker;
  FirstWorkerLife(&main, &worker);
  Desc(kWorker).state.store(rt::kRingRunning);
  Add(main, worker);
  // Its end is delivered, but the state does not say ended yet.
  EXPECT_EQ(Desc(kWorker).state.load(), rt::kRingRunning);
  EndWorker(/*joined=*/false);
  Add({}, {});
  EXPECT_EQ(Desc(kWorker).state.load(), rt::kRingEnded) << "not joined: its pthread_t may still be joined";
  // More words published than delivered: not yet.
  Desc(kWorker).head.fetch_add(1);
  Desc(kWorker).released.fetch_or(rt::kReleaseJoined);
  area_.shm->coming_rings.fetch_add(1);
  Add({}, {});
  EXPECT_EQ(Desc(kWorker).state.load(), rt::kRingEnded) << "undelivered words";
  Desc(kWorker).head.fetch_sub(1);
  Add({}, {});
  EXPECT_EQ(Desc(kWorker).state.load(), rt::kRingReturned);
  EXPECT_EQ(area_.shm->returned_rings.load(), 1u);
  EXPECT_EQ(area_.shm->coming_rings.load(), 0u) << "the ring no longer counts as coming";
  EXPECT_EQ(merger_.rings_returned(), 1u);
  // Not twice.
  Add({}, {});
  EXPECT_EQ(area_.shm->returned_rings.load(), 1u);
}

TEST_F(RingReuseTest, WithoutReuseNoRingGoesBack) {
  RingMerger plain(area_.shm);
  RingWords worker;
  Global(&worker, EventKind::kThreadBegin, 0, 0);
  Global(&worker, EventKind::kThreadEnd, 0, 1);
  Desc(kWorker).head.store(worker.size());
  EndWorker(/*joined=*/true);
  RingBatch b;
  b.words.resize(2);
  b.words[kWorker] = worker;
  ASSERT_TRUE(plain.Add(&b, [](const Event&) { return Status::Ok(); }).ok());
  EXPECT_EQ(Desc(kWorker).state.load(), rt::kRingEnded);
  EXPECT_EQ(plain.rings_returned(), 0u);
}

// The worker's thread ends, main joins it, the recorder gives its ring back
// and a second thread takes it. Main's join record (its number taken before
// the release bit, so before the second fork's) is merged only after the
// give-back: it must still name the first thread, and the second thread's
// records a new tid, which main's second join names.
TEST_F(RingReuseTest, AJoinMergedAfterTheRingWentBackNamesTheThreadThatEnded) {
  RingWords main, worker;
  FirstWorkerLife(&main, &worker);
  EndWorker(/*joined=*/true);
  Add(main, worker);
  ASSERT_EQ(Desc(kWorker).state.load(), rt::kRingReturned);

  ClaimAgain(/*os_tid=*/202);
  RingWords main2, worker2;
  Global(&main2, EventKind::kJoin, kWorker, 3);  // the first thread's join, late
  Global(&main2, EventKind::kFork, kWorker, 4);  // the second thread
  Global(&worker2, EventKind::kThreadBegin, 0, 5);
  Write(&worker2, 0x5000);
  Global(&worker2, EventKind::kThreadEnd, 0, 6);
  Global(&main2, EventKind::kJoin, kWorker, 7);
  Add(main2, worker2, /*final=*/true);

  ASSERT_EQ(events_.size(), 10u);
  const uint32_t main_tid = events_[0].tid;
  const Event* fork1 = Find(EventKind::kFork, 0);
  const Event* fork2 = Find(EventKind::kFork, 1);
  const Event* join1 = Find(EventKind::kJoin, 0);
  const Event* join2 = Find(EventKind::kJoin, 1);
  ASSERT_TRUE(fork1 && fork2 && join1 && join2);
  const uint64_t first = fork1->object, second = fork2->object;
  EXPECT_NE(first, second);
  EXPECT_NE(first, main_tid);
  EXPECT_EQ(join1->object, first);
  EXPECT_EQ(join2->object, second);
  // Each thread's records carry its own tid: the two writes are not one thread's.
  const Event* write1 = Find(EventKind::kWrite, 0);
  const Event* write2 = Find(EventKind::kWrite, 1);
  ASSERT_TRUE(write1 && write2);
  EXPECT_EQ(write1->tid, first);
  EXPECT_EQ(write2->tid, second);
  EXPECT_EQ(Find(EventKind::kThreadBegin, 1)->tid, second);

  // Every thread in the table, with its own os_tid and its creator.
  const std::vector<ThreadInfo> threads = merger_.Threads();
  ASSERT_EQ(threads.size(), 3u);
  for (const ThreadInfo& t : threads) {
    if (t.tid == first) {
      EXPECT_EQ(t.os_tid, 101);
      EXPECT_EQ(t.parent, main_tid);
    } else if (t.tid == second) {
      EXPECT_EQ(t.os_tid, 202);
      EXPECT_EQ(t.parent, main_tid);
    } else {
      EXPECT_EQ(t.tid, main_tid);
    }
  }
}

// A returned ring whose next thread has not appeared yet gets no tid: a batch
// in between makes no thread of it.
TEST_F(RingReuseTest, AReturnedRingMakesNoThreadUntilItsNextOneWrites) {
  RingWords main, worker;
  Global(&main, EventKind::kFork, kWorker, 0);
  Global(&worker, EventKind::kThreadBegin, 0, 1);
  Global(&worker, EventKind::kThreadEnd, 0, 2);
  EndWorker(/*joined=*/true);
  Add(main, worker);
  ASSERT_EQ(Desc(kWorker).state.load(), rt::kRingReturned);
  RingWords main2;
  Global(&main2, EventKind::kJoin, kWorker, 3);
  Add(main2, {}, /*final=*/true);
  EXPECT_EQ(merger_.Threads().size(), 2u);
  EXPECT_EQ(Find(EventKind::kJoin, 0)->object, Find(EventKind::kFork, 0)->object);
}

// The loss counters are the ring's, summed once whatever the number of its threads.
TEST_F(RingReuseTest, LossesOfAReusedRingCountOnce) {
  Desc(kWorker).lost[static_cast<int>(EventKind::kWrite)].store(3);
  RingWords worker;
  Global(&worker, EventKind::kThreadBegin, 0, 0);
  Global(&worker, EventKind::kThreadEnd, 0, 1);
  EndWorker(/*joined=*/true);
  Add({}, worker);
  ASSERT_EQ(Desc(kWorker).state.load(), rt::kRingReturned);
  ClaimAgain(7);
  Desc(kWorker).lost[static_cast<int>(EventKind::kWrite)].fetch_add(2);  // the second thread's
  RingWords worker2;
  Global(&worker2, EventKind::kThreadBegin, 0, 2);
  Add({}, worker2, /*final=*/true);
  EXPECT_EQ(merger_.LostByKind()[static_cast<int>(EventKind::kWrite)], 5u);
}

}  // namespace
}  // namespace seer::recorder
