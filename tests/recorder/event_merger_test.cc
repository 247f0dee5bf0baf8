// The merger on synthetic BPF records: timestamp order, lock semantics enforced
// over entry-stamped acquires, fork/join placement, semaphore and barrier gates.
#include "recorder/ebpf/event_merger.h"

#include <gtest/gtest.h>

#include <vector>

namespace seer::recorder {
namespace {

sync_event Rec(uint64_t ts, uint32_t tid, uint8_t kind, uint64_t object = 0, uint64_t aux = 0, uint8_t mode = 0) {
  sync_event e{};
  e.ts = ts;
  e.tid = tid;
  e.kind = kind;
  e.object = object;
  e.aux = aux;
  e.mode = mode;
  return e;
}

class MergerTest : public ::testing::Test {
 protected:
  MergerTest()
      : merger_([this](const Event& e) {
          out_.push_back(e);
          return Status::Ok();
        }) {}

  // "tid:kind:object" per event, for compact expectations.
  std::vector<std::string> Trace() const {
    std::vector<std::string> s;
    for (const auto& e : out_)
      s.push_back(std::to_string(e.tid) + ":" + std::string(EventKindName(e.kind)) + ":" + std::to_string(e.object));
    return s;
  }

  std::vector<Event> out_;
  EventMerger merger_;
};

TEST_F(MergerTest, AcquireStampedBeforeTheHoldersReleaseWaitsForIt) {
  ASSERT_TRUE(merger_.BeginThread(100, -1, "main").ok());
  merger_.Add(Rec(10, 100, SEER_EV_CLONE, 101));
  merger_.Add(Rec(20, 100, SEER_EV_ACQUIRE, 7));
  merger_.Add(Rec(30, 101, SEER_EV_ACQUIRE, 7));  // entered lock while main holds it
  merger_.Add(Rec(40, 100, SEER_EV_RELEASE, 7));
  merger_.Add(Rec(45, 101, SEER_EV_SIGNAL, 9));  // after its acquire in program order
  merger_.Add(Rec(50, 101, SEER_EV_RELEASE, 7));
  ASSERT_TRUE(merger_.Finish().ok());
  EXPECT_EQ(Trace(), (std::vector<std::string>{"0:thread_begin:0", "0:fork:1", "1:thread_begin:0", "0:acquire:7",
                                               "0:release:7", "1:acquire:7", "1:signal:9", "1:release:7"}));
  EXPECT_EQ(merger_.stats().forced, 0u);
}

// The lock is free when main enters pthread_mutex_lock (t1 is inside a cond
// wait), but t1 wakes first and takes it back: main's next record (its release)
// comes after t1's release, so main's acquire goes after it. Placed at its entry
// time instead, main's acquire would precede t1's hold and the accesses both
// made under the lock would look unordered (a false race).
TEST_F(MergerTest, AcquireIsPlacedWhereItsThreadMovedOn) {
  ASSERT_TRUE(merger_.BeginThread(100, -1, "main").ok());
  ASSERT_TRUE(merger_.BeginThread(101, -1, "t1").ok());
  merger_.Add(Rec(10, 101, SEER_EV_ACQUIRE, 7));
  merger_.Add(Rec(12, 101, SEER_EV_COND_WAIT_BEGIN, 5, 7));  // releases 7
  merger_.Add(Rec(20, 100, SEER_EV_SIGNAL, 5));
  merger_.Add(Rec(25, 100, SEER_EV_ACQUIRE, 7));           // enters the lock call
  merger_.Add(Rec(30, 101, SEER_EV_COND_WAIT_END, 5, 7));  // returned holding 7
  merger_.Add(Rec(40, 101, SEER_EV_RELEASE, 7));
  merger_.Add(Rec(50, 100, SEER_EV_RELEASE, 7));
  ASSERT_TRUE(merger_.Finish().ok());
  EXPECT_EQ(Trace(),
            (std::vector<std::string>{"0:thread_begin:0", "1:thread_begin:0", "1:acquire:7", "1:cond_wait_begin:5",
                                      "0:signal:5", "1:cond_wait_end:5", "1:release:7", "0:acquire:7", "0:release:7"}));
  EXPECT_EQ(merger_.stats().forced, 0u);
  EXPECT_EQ(merger_.stats().late, 0u);
}

TEST_F(MergerTest, ReorderWindowSortsByTimestamp) {
  ASSERT_TRUE(merger_.BeginThread(100, -1, "main").ok());
  ASSERT_TRUE(merger_.BeginThread(101, -1, "t").ok());
  merger_.Add(Rec(30, 101, SEER_EV_SIGNAL, 2));
  merger_.Add(Rec(20, 100, SEER_EV_SIGNAL, 1));
  ASSERT_TRUE(merger_.Advance(25).ok());
  EXPECT_EQ(out_.size(), 3u);  // two begins and the ts-20 record only
  ASSERT_TRUE(merger_.Finish().ok());
  EXPECT_EQ(Trace().back(), "1:signal:2");
}

TEST_F(MergerTest, RecursiveMutexCountsOnlyTheOutermostPair) {
  ASSERT_TRUE(merger_.BeginThread(100, -1, "main").ok());
  merger_.Add(Rec(1, 100, SEER_EV_ACQUIRE, 7));
  merger_.Add(Rec(2, 100, SEER_EV_ACQUIRE, 7));
  merger_.Add(Rec(3, 100, SEER_EV_RELEASE, 7));
  merger_.Add(Rec(4, 100, SEER_EV_RELEASE, 7));
  merger_.Add(Rec(5, 100, SEER_EV_RELEASE, 8));  // never taken: dropped and counted
  ASSERT_TRUE(merger_.Finish().ok());
  EXPECT_EQ(Trace(), (std::vector<std::string>{"0:thread_begin:0", "0:acquire:7", "0:release:7"}));
  EXPECT_EQ(merger_.stats().unmatched_releases, 1u);
}

TEST_F(MergerTest, SharedHoldersExcludeOnlyWriters) {
  ASSERT_TRUE(merger_.BeginThread(100, -1, "a").ok());
  ASSERT_TRUE(merger_.BeginThread(101, -1, "b").ok());
  merger_.Add(Rec(10, 100, SEER_EV_ACQUIRE, 7, 0, 1));
  merger_.Add(Rec(15, 100, SEER_EV_SIGNAL, 9));         // reader a holds it from here
  merger_.Add(Rec(20, 101, SEER_EV_ACQUIRE, 7, 0, 1));  // second reader: not blocked
  merger_.Add(Rec(30, 101, SEER_EV_RELEASE, 7));
  merger_.Add(Rec(40, 101, SEER_EV_ACQUIRE, 7, 0, 0));  // writer waits for reader a
  merger_.Add(Rec(50, 100, SEER_EV_RELEASE, 7));
  ASSERT_TRUE(merger_.Finish().ok());
  EXPECT_EQ(Trace(), (std::vector<std::string>{"0:thread_begin:0", "1:thread_begin:0", "0:acquire:7", "0:signal:9",
                                               "1:acquire:7", "1:release:7", "0:release:7", "1:acquire:7"}));
  EXPECT_EQ(out_[5].mode, static_cast<uint8_t>(LockMode::kShared));
  EXPECT_EQ(out_.back().mode, static_cast<uint8_t>(LockMode::kExclusive));
}

// How the call got the lock (SEER_ACQ_*) reaches the trace as the acquire's
// aux (AcquireHow), in both modes; a nested re-acquisition stays no event.
TEST_F(MergerTest, TrylockAndTimedAcquiresKeepHowTheyGotTheLock) {
  ASSERT_TRUE(merger_.BeginThread(100, -1, "main").ok());
  merger_.Add(Rec(10, 100, SEER_EV_ACQUIRE, 7, SEER_ACQ_TRY));
  merger_.Add(Rec(20, 100, SEER_EV_ACQUIRE, 8, SEER_ACQ_TIMED, 1));
  merger_.Add(Rec(30, 100, SEER_EV_ACQUIRE, 9, SEER_ACQ_BLOCKING));
  merger_.Add(Rec(40, 100, SEER_EV_ACQUIRE, 9, SEER_ACQ_TRY));  // recursive: no event
  ASSERT_TRUE(merger_.Finish().ok());
  ASSERT_EQ(Trace(), (std::vector<std::string>{"0:thread_begin:0", "0:acquire:7", "0:acquire:8", "0:acquire:9"}));
  EXPECT_EQ(out_[1].aux, static_cast<uint64_t>(AcquireHow::kTry));
  EXPECT_TRUE(IsNonBlockingAcquire(out_[1]));
  EXPECT_EQ(out_[2].aux, static_cast<uint64_t>(AcquireHow::kTimed));
  EXPECT_EQ(out_[2].mode, static_cast<uint8_t>(LockMode::kShared));
  EXPECT_EQ(out_[3].aux, static_cast<uint64_t>(AcquireHow::kBlocking));
  EXPECT_FALSE(IsNonBlockingAcquire(out_[3]));
}

TEST_F(MergerTest, JoinWaitsForTheThreadEndAndNamesTheSeerTid) {
  ASSERT_TRUE(merger_.BeginThread(100, -1, "main").ok());
  merger_.Add(Rec(1, 100, SEER_EV_CLONE, 101));
  merger_.Add(Rec(2, 100, SEER_EV_CREATE_RET, 0xabc));
  merger_.Add(Rec(3, 100, SEER_EV_JOIN, 0xabc));  // stamped before the child's exit record
  merger_.Add(Rec(4, 101, SEER_EV_THREAD_EXIT, 0x6b726f77));
  ASSERT_TRUE(merger_.Finish().ok());
  EXPECT_EQ(Trace(), (std::vector<std::string>{"0:thread_begin:0", "0:fork:1", "1:thread_begin:0", "1:thread_end:0",
                                               "0:join:1"}));
  EXPECT_EQ(merger_.Threads()[1].name, "work");
  EXPECT_EQ(merger_.Threads()[1].parent, 0);
}

TEST_F(MergerTest, SemaphoreWaitFollowsAPost) {
  ASSERT_TRUE(merger_.BeginThread(100, -1, "a").ok());
  ASSERT_TRUE(merger_.BeginThread(101, -1, "b").ok());
  merger_.Add(Rec(1, 100, SEER_EV_SEM_INIT, 5, 0));
  merger_.Add(Rec(2, 101, SEER_EV_WAIT, 5));
  merger_.Add(Rec(3, 100, SEER_EV_SIGNAL, 5));
  ASSERT_TRUE(merger_.Finish().ok());
  EXPECT_EQ(Trace(), (std::vector<std::string>{"0:thread_begin:0", "1:thread_begin:0", "0:signal:5", "1:wait:5"}));
}

TEST_F(MergerTest, BarrierDeparturesFollowEveryArrival) {
  ASSERT_TRUE(merger_.BeginThread(100, -1, "a").ok());
  ASSERT_TRUE(merger_.BeginThread(101, -1, "b").ok());
  merger_.Add(Rec(1, 100, SEER_EV_BARRIER_INIT, 3, 2));
  merger_.Add(Rec(2, 100, SEER_EV_BARRIER_ARRIVE, 3));
  merger_.Add(Rec(3, 100, SEER_EV_BARRIER_DEPART, 3));
  merger_.Add(Rec(4, 101, SEER_EV_BARRIER_ARRIVE, 3));
  merger_.Add(Rec(5, 101, SEER_EV_BARRIER_DEPART, 3));
  ASSERT_TRUE(merger_.Finish().ok());
  EXPECT_EQ(Trace(), (std::vector<std::string>{"0:thread_begin:0", "1:thread_begin:0", "0:barrier_arrive:3",
                                               "1:barrier_arrive:3", "0:barrier_depart:3", "1:barrier_depart:3"}));
}

TEST_F(MergerTest, LostReleaseIsForcedAtTheEndAndCounted) {
  ASSERT_TRUE(merger_.BeginThread(100, -1, "a").ok());
  ASSERT_TRUE(merger_.BeginThread(101, -1, "b").ok());
  merger_.Add(Rec(1, 100, SEER_EV_ACQUIRE, 7));
  merger_.Add(Rec(2, 101, SEER_EV_ACQUIRE, 7));  // a's release was lost
  ASSERT_TRUE(merger_.Finish().ok());
  EXPECT_EQ(out_.size(), 4u);
  EXPECT_EQ(merger_.stats().forced, 1u);
}

TEST_F(MergerTest, AcquireStillWaitingAtDetachIsDroppedNotForced) {
  ASSERT_TRUE(merger_.BeginThread(100, -1, "a").ok());
  ASSERT_TRUE(merger_.BeginThread(101, -1, "b").ok());
  merger_.Add(Rec(1, 100, SEER_EV_ACQUIRE, 7));  // a got the lock and ran on (its accesses say so)
  merger_.Add(Rec(2, 101, SEER_EV_ACQUIRE, 7));  // b still waits for it when the recorder detaches
  ASSERT_TRUE(merger_.Finish([](pid_t os_tid, uint64_t) { return os_tid == 100; }).ok());
  EXPECT_EQ(Trace(), (std::vector<std::string>{"0:thread_begin:0", "1:thread_begin:0", "0:acquire:7"}));
  EXPECT_EQ(merger_.stats().forced, 0u);
  EXPECT_EQ(merger_.stats().pending_acquires, 1u);
}

TEST_F(MergerTest, ChildProcessesAreCountedNotFollowed) {
  ASSERT_TRUE(merger_.BeginThread(100, -1, "a").ok());
  merger_.Add(Rec(1, 100, SEER_EV_PROCESS_FORK, 555));
  ASSERT_TRUE(merger_.Finish().ok());
  EXPECT_EQ(out_.size(), 1u);
  EXPECT_EQ(merger_.stats().process_forks, 1u);
}

TEST_F(MergerTest, ExecEndsTheThreadThatCalledItAndKeepsItsName) {
  ASSERT_TRUE(merger_.BeginThread(100, -1, "prog").ok());
  merger_.Add(Rec(10, 100, SEER_EV_SIGNAL, 3));
  merger_.Add(Rec(20, 100, SEER_EV_EXEC, 100));
  merger_.Add(Rec(30, 100, SEER_EV_EXEC, 100));  // a second one changes nothing
  ASSERT_TRUE(merger_.Finish().ok());
  EXPECT_EQ(Trace(), (std::vector<std::string>{"0:thread_begin:0", "0:signal:3", "0:thread_end:0"}));
  EXPECT_TRUE(merger_.LiveThreads().empty());
  EXPECT_EQ(merger_.Threads()[0].name, "prog");
}

TEST_F(MergerTest, SinkErrorStopsTheMerge) {
  EventMerger failing([](const Event&) { return Status::IOError("disk full"); });
  Status st = failing.BeginThread(1, -1, "x");
  EXPECT_EQ(st.code(), Status::Code::kIOError);
}

}  // namespace
}  // namespace seer::recorder
