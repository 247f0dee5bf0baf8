// ReportContext on a hand-built trace: shadow call stacks from function entry and
// exit, held locks through read mode and condition waits, the heap block live
// at an access when a block's address is freed and reused, and the innermost of
// nested blocks (a thread's TLS inside its stack).
#include "predictor/report/context.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "recorded_program.h"
#include "seer/trace.h"
#include "tests/support/trace_builder.h"

namespace seer::predictor {
namespace {

using test::TraceBuilder;

EventRef Ref(const TraceBuilder& b, uint64_t index) { return EventRef::Of(b.events()[index]); }

class ContextTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::MakeTempDir("context");
    ASSERT_FALSE(dir_.empty());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Write(const TraceBuilder& b) {
    const std::string path = dir_ + "/t.seer";
    std::unique_ptr<TraceWriter> w;
    EXPECT_TRUE(TraceWriter::Create(path, TraceWriterOptions(), &w).ok());
    for (const Event& e : b.events()) EXPECT_TRUE(w->Append(e).ok());
    EXPECT_TRUE(w->Close().ok());
    return path;
  }
  std::string dir_;
};

TEST_F(ContextTest, StacksLocksAndTheLiveBlock) {
  TraceBuilder b;
  const auto at = [&] { return b.events().size(); };
  b.Add("T0", EventKind::kFuncEntry, 0x1000, 0x500);
  b.Add("T0", EventKind::kAlloc, 0x9000, 0x600, 16);
  b.Add("T0", EventKind::kFree, 0x9000, 0x610, 16);
  const uint64_t after_free = at();
  b.Add("T0", EventKind::kRead, 0x9004, 0x620, 4);  // between free and reuse: no block
  b.Add("T1", EventKind::kFuncEntry, 0x2000, 0x700);
  b.Add("T1", EventKind::kFuncEntry, 0x3000, 0x710);
  const uint64_t realloc = at();
  b.Add("T1", EventKind::kAlloc, 0x9000, 0x630, 32);
  b.Add("T1", EventKind::kAcquire, 7, 0x640, 0, static_cast<uint8_t>(LockMode::kShared));
  b.Add("T1", EventKind::kAcquire, 8, 0x650);
  b.Add("T1", EventKind::kCondWaitBegin, 9, 0x660, 8);  // releases 8
  const uint64_t in_wait = at();
  b.Add("T1", EventKind::kWrite, 0x9008, 0x800, 4);
  b.Add("T1", EventKind::kCondWaitEnd, 9, 0x670, 8);  // holds 8 again
  const uint64_t after_wait = at();
  b.Add("T1", EventKind::kRead, 0x9008, 0x810, 4);
  b.Add("T1", EventKind::kFuncExit, 0, 0x720);
  const uint64_t t0_write = at();
  b.Add("T0", EventKind::kWrite, 0x9008, 0x820, 4);

  Findings findings;
  RaceResult r;
  r.engine = "hb";
  r.pairs.push_back({Ref(b, in_wait), Ref(b, t0_write), 1});
  r.pairs.push_back({Ref(b, after_free), Ref(b, after_wait), 1});
  findings.races.push_back(r);

  ReportContext c;
  ASSERT_TRUE(ReportContext::Collect(Write(b), findings, &c).ok());

  const EventContext* wait = c.At(in_wait);
  ASSERT_NE(wait, nullptr);
  EXPECT_EQ(wait->stack, (std::vector<uint64_t>{0x800, 0x710, 0x700}));
  ASSERT_EQ(wait->locks.size(), 1u);  // 8 is released by the wait
  EXPECT_EQ(wait->locks[0].lock, 7u);
  EXPECT_TRUE(wait->locks[0].shared);

  const EventContext* back = c.At(after_wait);
  ASSERT_NE(back, nullptr);
  ASSERT_EQ(back->locks.size(), 2u);
  EXPECT_EQ(back->locks[1].lock, 8u);
  EXPECT_FALSE(back->locks[1].shared);

  const EventContext* t0 = c.At(t0_write);
  ASSERT_NE(t0, nullptr);
  EXPECT_EQ(t0->stack, (std::vector<uint64_t>{0x820, 0x500}));
  EXPECT_TRUE(t0->locks.empty());
  EXPECT_EQ(c.At(realloc), nullptr);  // not named by a finding

  const MemoryBlock* block = c.Block(0x9008, in_wait);
  ASSERT_NE(block, nullptr);
  EXPECT_EQ(block->address, 0x9000u);
  EXPECT_EQ(block->size, 32u);  // the reused block, not the freed one
  EXPECT_EQ(block->alloc_index, realloc);
  EXPECT_EQ(block->tid, b.events()[realloc].tid);
  EXPECT_EQ(block->region, AllocRegion::kHeap);
  EXPECT_EQ(block->stack, (std::vector<uint64_t>{0x630, 0x710, 0x700}));
  EXPECT_EQ(c.Block(0x9004, after_free), nullptr);  // freed, not yet reused
}

// Like glibc's threads: T1's stack block holds its static TLS block. An access
// in the TLS block is described by it, in whichever order the two were
// allocated; one elsewhere in the stack by the stack; and freeing the stack
// ends both.
TEST_F(ContextTest, InnermostBlockDescribesAnAddress) {
  const uint8_t kStack = static_cast<uint8_t>(AllocRegion::kStack), kTls = static_cast<uint8_t>(AllocRegion::kTls);
  TraceBuilder b;
  const auto at = [&] { return b.events().size(); };
  const uint64_t stack = at();
  b.Add("T1", EventKind::kAlloc, 0x100000, 0x10, 0x10000, kStack);
  const uint64_t tls = at();
  b.Add("T1", EventKind::kAlloc, 0x10f000, 0x20, 0x100, kTls);
  const uint64_t in_tls = at();
  b.Add("T1", EventKind::kWrite, 0x10f010, 0x30, 4);
  const uint64_t in_stack = at();
  b.Add("T1", EventKind::kWrite, 0x108000, 0x40, 4);
  // T2's blocks the other way round: TLS first, then the stack around it.
  const uint64_t tls2 = at();
  b.Add("T2", EventKind::kAlloc, 0x20f000, 0x20, 0x100, kTls);
  b.Add("T2", EventKind::kAlloc, 0x200000, 0x10, 0x10000, kStack);
  const uint64_t in_tls2 = at();
  b.Add("T2", EventKind::kWrite, 0x20f008, 0x50, 4);
  b.Add("T1", EventKind::kFree, 0x100000, 0x60, 0x10000);
  const uint64_t after_free = at();
  b.Add("T2", EventKind::kWrite, 0x10f010, 0x70, 4);

  Findings findings;
  RaceResult r;
  r.engine = "hb";
  for (uint64_t i : {in_tls, in_stack, in_tls2, after_free}) r.pairs.push_back({Ref(b, i), Ref(b, i), 1});
  findings.races.push_back(r);
  ReportContext c;
  ASSERT_TRUE(ReportContext::Collect(Write(b), findings, &c).ok());

  const MemoryBlock* t = c.Block(0x10f010, in_tls);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->region, AllocRegion::kTls);
  EXPECT_EQ(t->alloc_index, tls);
  EXPECT_EQ(t->pc, 0x20u);
  EXPECT_EQ(t->tid, b.events()[tls].tid);
  const MemoryBlock* s = c.Block(0x108000, in_stack);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->region, AllocRegion::kStack);
  EXPECT_EQ(s->alloc_index, stack);
  const MemoryBlock* t2 = c.Block(0x20f008, in_tls2);
  ASSERT_NE(t2, nullptr);
  EXPECT_EQ(t2->alloc_index, tls2);
  EXPECT_EQ(c.Block(0x10f010, after_free), nullptr);  // the stack's free ended the TLS block in it
}

TEST_F(ContextTest, NoFindingsReadsNothing) {
  ReportContext c;
  EXPECT_TRUE(ReportContext::Collect(dir_ + "/does-not-exist.seer", Findings(), &c).ok());
  Findings one;
  one.deadlocks.push_back({});
  one.deadlocks.back().cycle.push_back({});
  EXPECT_FALSE(ReportContext::Collect(dir_ + "/does-not-exist.seer", one, &c).ok());
}

}  // namespace
}  // namespace seer::predictor
