// AttachFilter: what a recording that begins inside a running process (an
// attach, or one of the service's windows) leaves out, and what it keeps.
#include "recorder/attach_filter.h"

#include <gtest/gtest.h>

#include "tests/support/trace_builder.h"

namespace seer::recorder {
namespace {

Event Ev(uint32_t tid, EventKind kind, uint64_t object, uint64_t aux = 0) {
  return test::MakeEvent(tid, kind, object, /*pc=*/0, aux);
}

TEST(AttachFilter, ReleasesOfLocksTakenBeforeAreLeftOutAndCounted) {
  AttachFilter f;
  EXPECT_FALSE(f.Keep(Ev(1, EventKind::kRelease, 0x10)));  // taken before the recording
  EXPECT_TRUE(f.Keep(Ev(1, EventKind::kAcquire, 0x10)));
  EXPECT_FALSE(f.Keep(Ev(2, EventKind::kRelease, 0x10)));  // held by thread 1, not 2
  EXPECT_TRUE(f.Keep(Ev(1, EventKind::kRelease, 0x10)));
  EXPECT_FALSE(f.Keep(Ev(1, EventKind::kRelease, 0x10)));  // released once already
  EXPECT_EQ(f.unmatched_releases(), 3u);
}

TEST(AttachFilter, RecursiveAndNestedLocksAreCountedPerThreadAndLock) {
  AttachFilter f;
  for (uint64_t lock : {0x10, 0x10, 0x20, 0x30}) EXPECT_TRUE(f.Keep(Ev(1, EventKind::kAcquire, lock)));
  EXPECT_TRUE(f.Keep(Ev(2, EventKind::kAcquire, 0x20)));
  // Out of order, as a program may release them.
  for (uint64_t lock : {0x20, 0x10, 0x30, 0x10}) EXPECT_TRUE(f.Keep(Ev(1, EventKind::kRelease, lock)));
  EXPECT_FALSE(f.Keep(Ev(1, EventKind::kRelease, 0x10)));
  EXPECT_TRUE(f.Keep(Ev(2, EventKind::kRelease, 0x20)));
  EXPECT_EQ(f.unmatched_releases(), 1u);
}

TEST(AttachFilter, CondWaitsReleaseAndRetakeTheirMutex) {
  AttachFilter f;
  // A wait that began before the recording: its return re-takes the mutex (aux), which then is held.
  EXPECT_TRUE(f.Keep(Ev(1, EventKind::kCondWaitEnd, 0x90, 0x10)));
  EXPECT_TRUE(f.Keep(Ev(1, EventKind::kCondWaitBegin, 0x90, 0x10)));  // kept either way
  EXPECT_FALSE(f.Keep(Ev(1, EventKind::kRelease, 0x10)));             // the wait released it
  EXPECT_TRUE(f.Keep(Ev(1, EventKind::kCondWaitEnd, 0x90, 0x10)));
  EXPECT_TRUE(f.Keep(Ev(1, EventKind::kRelease, 0x10)));
  EXPECT_EQ(f.unmatched_releases(), 1u);
}

TEST(AttachFilter, FreesOfBlocksAllocatedBeforeAreLeftOut) {
  AttachFilter f;
  EXPECT_FALSE(f.Keep(Ev(1, EventKind::kFree, 0x1000)));
  EXPECT_TRUE(f.Keep(Ev(1, EventKind::kAlloc, 0x1000, 64)));
  EXPECT_TRUE(f.Keep(Ev(2, EventKind::kFree, 0x1000)));  // any thread may free it
  EXPECT_FALSE(f.Keep(Ev(2, EventKind::kFree, 0x1000)));
  EXPECT_EQ(f.frees_before_attach(), 2u);
  EXPECT_TRUE(f.Keep(Ev(1, EventKind::kRead, 0x1000)));  // everything else is kept
}

}  // namespace
}  // namespace seer::recorder
