// C11 atomics by memory order (predictor/common/sync_ops.h, EventLowering): each
// rule on a small trace, for every race engine that orders events, and the
// brute-force oracle's verdict on the same trace.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "seer/event.h"
#include "tests/oracle/oracle.h"
#include "tests/support/engine_runner.h"
#include "tests/support/trace_builder.h"

namespace seer::test {
namespace {

constexpr uint64_t kFlag = 0x1000;     // the atomic
constexpr uint64_t kPayload = 0x2000;  // the plain data it publishes
constexpr uint64_t kWritePc = 11, kReadPc = 22;

uint8_t O(MemoryOrder o) { return static_cast<uint8_t>(o); }

// T1 writes the payload and then does `publish`; T2 does `observe` and reads the
// payload. Each step is (kind, order); a kFence step has no address.
struct Step {
  EventKind kind;
  MemoryOrder order;
  const char* thread = nullptr;  // default: the side's own thread
};

std::vector<Event> Publication(const std::vector<Step>& publish, const std::vector<Step>& observe) {
  TraceBuilder b;
  uint64_t pc = 100;
  auto add = [&](const char* thread, const Step& s) {
    const uint64_t object = s.kind == EventKind::kFence ? 0 : kFlag;
    const uint64_t aux = s.kind == EventKind::kFence ? 0 : 4;
    b.Add(s.thread ? s.thread : thread, s.kind, object, ++pc, aux, O(s.order));
  };
  b.Add("T1", EventKind::kWrite, kPayload, kWritePc, 4);
  for (const Step& s : publish) add("T1", s);
  for (const Step& s : observe) add("T2", s);
  b.Add("T2", EventKind::kRead, kPayload, kReadPc, 4);
  return b.events();
}

// Whether each ordering engine, and the oracle, find the payload race.
void ExpectPayloadRace(const std::vector<Event>& trace, bool race) {
  const std::pair<uint64_t, uint64_t> pair{kWritePc, kReadPc};
  for (const char* engine : {"hb", "wcp"}) {
    EXPECT_EQ(RacePcPairs(RunEngine(engine, trace)).count(pair), race ? 1u : 0u) << engine;
  }
  // SHB and the oracle keep every read's writer, atomic loads included: a load
  // that saw the flag orders the payload on every sequentially consistent
  // schedule, so they see no race whatever the orders (C11's relaxed races are
  // hb's and wcp's to report). What they must never do is report a race that
  // release/acquire rules out.
  if (!race) {
    EXPECT_TRUE(RacePcPairs(RunEngine("shb", trace)).empty());
    EXPECT_TRUE(RunOracle(trace).races.empty());
  }
}

TEST(MemoryOrder, ReleaseStoreAcquireLoadPublish) {
  ExpectPayloadRace(Publication({{EventKind::kAtomicStore, MemoryOrder::kRelease}},
                                {{EventKind::kAtomicLoad, MemoryOrder::kAcquire}}),
                    false);
}

TEST(MemoryOrder, SeqCstIsAcquireAndRelease) {
  ExpectPayloadRace(
      Publication({{EventKind::kAtomicStore, MemoryOrder::kSeqCst}}, {{EventKind::kAtomicLoad, MemoryOrder::kSeqCst}}),
      false);
  ExpectPayloadRace(
      Publication({{EventKind::kAtomicRmw, MemoryOrder::kSeqCst}}, {{EventKind::kAtomicRmw, MemoryOrder::kAcqRel}}),
      false);
}

TEST(MemoryOrder, RelaxedOrdersNothing) {
  ExpectPayloadRace(Publication({{EventKind::kAtomicStore, MemoryOrder::kRelaxed}},
                                {{EventKind::kAtomicLoad, MemoryOrder::kAcquire}}),
                    true);
  ExpectPayloadRace(Publication({{EventKind::kAtomicStore, MemoryOrder::kRelease}},
                                {{EventKind::kAtomicLoad, MemoryOrder::kRelaxed}}),
                    true);
  ExpectPayloadRace(
      Publication({{EventKind::kAtomicRmw, MemoryOrder::kRelaxed}}, {{EventKind::kAtomicRmw, MemoryOrder::kRelaxed}}),
      true);
}

TEST(MemoryOrder, ReadModifyWritesContinueAReleaseSequence) {
  // T3's relaxed RMW comes between the release store and the acquire load that
  // reads the RMW's value: the load still synchronises with the store.
  ExpectPayloadRace(Publication({{EventKind::kAtomicStore, MemoryOrder::kRelease},
                                 {EventKind::kAtomicRmw, MemoryOrder::kRelaxed, "T3"}},
                                {{EventKind::kAtomicLoad, MemoryOrder::kAcquire}}),
                    false);
}

TEST(MemoryOrder, AnotherThreadsPlainStoreEndsTheReleaseSequence) {
  ExpectPayloadRace(Publication({{EventKind::kAtomicStore, MemoryOrder::kRelease},
                                 {EventKind::kAtomicStore, MemoryOrder::kRelaxed, "T3"}},
                                {{EventKind::kAtomicLoad, MemoryOrder::kAcquire}}),
                    true);
  // A release store by T3 starts a new sequence that T1's store is not part of.
  ExpectPayloadRace(Publication({{EventKind::kAtomicStore, MemoryOrder::kRelease},
                                 {EventKind::kAtomicStore, MemoryOrder::kRelease, "T3"}},
                                {{EventKind::kAtomicLoad, MemoryOrder::kAcquire}}),
                    true);
}

TEST(MemoryOrder, FencesPairUp) {
  ExpectPayloadRace(
      Publication({{EventKind::kFence, MemoryOrder::kRelease}, {EventKind::kAtomicStore, MemoryOrder::kRelaxed}},
                  {{EventKind::kAtomicLoad, MemoryOrder::kRelaxed}, {EventKind::kFence, MemoryOrder::kAcquire}}),
      false);
  // A fence with a release or acquire access on the other side.
  ExpectPayloadRace(
      Publication({{EventKind::kFence, MemoryOrder::kSeqCst}, {EventKind::kAtomicStore, MemoryOrder::kRelaxed}},
                  {{EventKind::kAtomicLoad, MemoryOrder::kAcquire}}),
      false);
  ExpectPayloadRace(
      Publication({{EventKind::kAtomicStore, MemoryOrder::kRelease}},
                  {{EventKind::kAtomicLoad, MemoryOrder::kRelaxed}, {EventKind::kFence, MemoryOrder::kAcqRel}}),
      false);
}

TEST(MemoryOrder, HalfAFencePairOrdersNothing) {
  ExpectPayloadRace(
      Publication({{EventKind::kFence, MemoryOrder::kRelease}, {EventKind::kAtomicStore, MemoryOrder::kRelaxed}},
                  {{EventKind::kAtomicLoad, MemoryOrder::kRelaxed}}),
      true);
  // The acquire fence must follow the load: one before it orders nothing.
  ExpectPayloadRace(
      Publication({{EventKind::kAtomicStore, MemoryOrder::kRelease}},
                  {{EventKind::kFence, MemoryOrder::kAcquire}, {EventKind::kAtomicLoad, MemoryOrder::kRelaxed}}),
      true);
  // A release fence after the store does not make that store release.
  ExpectPayloadRace(
      Publication({{EventKind::kAtomicStore, MemoryOrder::kRelaxed}, {EventKind::kFence, MemoryOrder::kRelease}},
                  {{EventKind::kAtomicLoad, MemoryOrder::kAcquire}}),
      true);
}

TEST(MemoryOrder, AtomicsNeverRaceWithAtomicsButDoWithPlainAccesses) {
  TraceBuilder b;
  b.Add("T1", EventKind::kAtomicStore, kFlag, 1, 4, O(MemoryOrder::kRelaxed))
      .Add("T2", EventKind::kAtomicRmw, kFlag, 2, 4, O(MemoryOrder::kRelaxed))
      .Add("T3", EventKind::kWrite, kFlag, 3, 4);
  for (const char* engine : {"hb", "wcp", "shb"}) {
    const auto pairs = RacePcPairs(RunEngine(engine, b.events()));
    EXPECT_EQ(pairs.count({1, 2}), 0u) << engine;
    EXPECT_EQ(pairs.count({2, 3}), 1u) << engine;
  }
}

}  // namespace
}  // namespace seer::test
