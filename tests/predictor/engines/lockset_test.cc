// lockset on the byte the runtime gives each synchronisation object (written at
// its init and destroy, read at each use: docs/runtime.md): no warning in a
// recorded trace, where locks and variables share one address space; in an
// imported or generated one, where lock 0 and variable 0 are different things,
// an access is an access.
#include <gtest/gtest.h>

#include "seer/trace.h"
#include "tests/predictor/engines/engine_support.h"

namespace seer::test {
namespace {

constexpr uint64_t kMutex = 0x601040;  // the mutex's address, and its byte's

// main inits the mutex, a worker locks and unlocks it, main joins and destroys
// it: the runtime's byte accesses around the lock events, as a recording has them.
std::vector<Event> MutexLifetime() {
  std::vector<Event> ev;
  auto add = [&](uint32_t tid, EventKind kind, uint64_t object, uint64_t aux = 0) {
    ev.push_back(MakeEvent(tid, kind, object, /*pc=*/0x400000 + ev.size(), aux));
  };
  add(0, EventKind::kWrite, kMutex, 1);  // pthread_mutex_init
  add(0, EventKind::kFork, 1);
  add(1, EventKind::kAcquire, kMutex);
  add(1, EventKind::kRead, kMutex, 1);  // the lock's read, after its acquire
  add(1, EventKind::kRead, kMutex, 1);  // the unlock's, before its release
  add(1, EventKind::kRelease, kMutex);
  add(0, EventKind::kJoin, 1);
  add(0, EventKind::kWrite, kMutex, 1);  // pthread_mutex_destroy
  for (size_t i = 0; i < ev.size(); ++i) ev[i].index = i;
  return ev;
}

TraceInfo InfoFor(const std::vector<Event>& ev, bool recorded) {
  TraceBuilder b;
  b.Add("T0", EventKind::kThreadBegin, 0, 0).Add("T1", EventKind::kThreadBegin, 0, 0);
  TraceInfo info = b.Info();
  info.counters.events = ev.size();
  if (recorded) info.meta["record.sync"] = "inproc";
  return info;
}

TEST(Lockset, SyncObjectBytesOfARecordedTraceGiveNoWarning) {
  const std::vector<Event> ev = MutexLifetime();
  EXPECT_EQ(RunEngine("lockset", ev, InfoFor(ev, /*recorded=*/true)).pairs.size(), 0u);
  // The same events from an imported trace: the byte is a variable like any.
  EXPECT_GT(RunEngine("lockset", ev, InfoFor(ev, /*recorded=*/false)).pairs.size(), 0u);
}

}  // namespace
}  // namespace seer::test
