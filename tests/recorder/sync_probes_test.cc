// The system-call programs of the BPF sync tracer through each of their two
// ways in (recorder/ebpf/sync_probes.h): the per-syscall tracepoints, whose ids
// are in tracefs (mounted by seer where it is not: recorder/ebpf/tracefs.h),
// and the raw sys_enter/sys_exit ones, the fallback. Each must see a futex
// wake and the wait it ended in this very process (OpenFutexOnly, the
// preloaded runtime's companion; the mmap program of the full set is
// RecordTest.LibraryLoadedAfterTheStartIsInTheModuleMap's, run both ways from
// tests/recorder/CMakeLists.txt). Each test runs in a private mount namespace
// with tracefs as it needs it, whatever the machine has (tracing_mounts.h;
// `seer record` the same way: tracefs_test.cc). Needs root.
#include "recorder/ebpf/sync_probes.h"

#include <gtest/gtest.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>
#include <vector>

#include "tests/recorder/tracing_mounts.h"

namespace seer::recorder {
namespace {

using seer::testing::ScopedTracingMountNamespace;
using seer::testing::TracingMounts;
using seer::testing::TracingState;

struct Seen {
  int wakes = 0;
  int waits = 0;
};

Seen RecordOwnSystemCalls(bool raw) {
  // Whatever the environment the tests were started with says.
  if (raw)
    setenv("SEER_RAW_SYSCALL_TRACEPOINTS", "1", 1);
  else
    unsetenv("SEER_RAW_SYSCALL_TRACEPOINTS");
  SyncProbes probes;
  Status st = probes.OpenFutexOnly(getpid(), 1 << 20);
  unsetenv("SEER_RAW_SYSCALL_TRACEPOINTS");
  EXPECT_TRUE(st.ok()) << st.ToString();
  if (!st.ok()) return {};
  EXPECT_EQ(probes.raw_syscall_tracepoints(), raw) << "tracefs: " << probes.tracefs_note();

  static uint32_t word = 0;
  std::atomic<pid_t> waiter_tid{0};
  std::thread waiter([&] {
    waiter_tid = static_cast<pid_t>(syscall(SYS_gettid));
    // Returns 0 only when woken (the word stays 0).
    while (syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, nullptr, nullptr, 0) != 0) {
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the waiter is asleep by then
  while (syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0) != 1)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  waiter.join();

  Seen seen;
  const pid_t me = static_cast<pid_t>(syscall(SYS_gettid));
  auto count = [&](const sync_event& e) {
    if (e.kind == SEER_EV_SIGNAL && e.mode == SEER_MODE_FUTEX && e.object == reinterpret_cast<uint64_t>(&word) &&
        e.tid == static_cast<uint32_t>(me))
      ++seen.wakes;
    if (e.kind == SEER_EV_WAIT && e.mode == SEER_MODE_FUTEX && e.object == reinterpret_cast<uint64_t>(&word) &&
        e.tid == static_cast<uint32_t>(waiter_tid.load()))
      ++seen.waits;
  };
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(probes.Poll(20, count).ok());
  return seen;
}

class SyncProbesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "NOT RUN: loading the BPF sync tracer needs root (CAP_BPF + CAP_PERFMON)";
  }
};

// A fresh machine (issue #30): seer mounts tracefs, in this test's namespace.
TEST_F(SyncProbesTest, PerSyscallTracepointsSeeAWakeAndTheWaitItEnded) {
  ScopedTracingMountNamespace ns(TracingState::kNone);
  ASSERT_TRUE(ns.status().ok()) << ns.status().ToString();
  const Seen seen = RecordOwnSystemCalls(/*raw=*/false);
  EXPECT_EQ(seen.wakes, 1);
  EXPECT_EQ(seen.waits, 1);
  EXPECT_EQ(TracingMounts(), std::vector<std::string>{"tracefs /sys/kernel/tracing"});
}

TEST_F(SyncProbesTest, PerSyscallTracepointsWhereTracefsIsMounted) {
  ScopedTracingMountNamespace ns(TracingState::kTracefs);
  ASSERT_TRUE(ns.status().ok()) << ns.status().ToString();
  const Seen seen = RecordOwnSystemCalls(/*raw=*/false);
  EXPECT_EQ(seen.wakes, 1);
  EXPECT_EQ(seen.waits, 1);
  EXPECT_EQ(TracingMounts(), std::vector<std::string>{"tracefs /sys/kernel/tracing"});
}

TEST_F(SyncProbesTest, RawTracepointsSeeTheSame) {
  ScopedTracingMountNamespace ns(TracingState::kNone);
  ASSERT_TRUE(ns.status().ok()) << ns.status().ToString();
  const Seen seen = RecordOwnSystemCalls(/*raw=*/true);
  EXPECT_EQ(seen.wakes, 1);
  EXPECT_EQ(seen.waits, 1);
  EXPECT_TRUE(TracingMounts().empty()) << "forced to the raw set, seer mounted " << TracingMounts()[0];
}

}  // namespace
}  // namespace seer::recorder
