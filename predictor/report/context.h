// What the reports add to the events findings name: the thread's call stack and
// held locks at each, and the allocated block (heap block with its allocation
// stack, or a thread's stack or TLS block) containing each raced address. Collected by one more pass over the trace
// after the engines finish; memory grows with the number of reported events, not the trace.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "predictor/findings.h"
#include "seer/event.h"
#include "seer/status.h"

namespace seer::predictor {

struct HeldLock {
  uint64_t lock = 0;
  bool shared = false;  // held in read mode
};

// Raw program counters, innermost first: the event's own pc, then the call sites
// of the functions it is in (from kFuncEntry / kFuncExit).
struct EventContext {
  std::vector<uint64_t> stack;
  std::vector<HeldLock> locks;  // in acquisition order
};

// The range of a kAlloc: a heap block, or a thread's stack or TLS block.
struct MemoryBlock {
  uint64_t address = 0;
  uint64_t size = 0;
  AllocRegion region = AllocRegion::kHeap;
  uint64_t alloc_index = 0;     // the kAlloc event
  uint64_t pc = 0;              // the kAlloc's pc; for kTls the module's TLS image (seer/event.h)
  uint32_t tid = 0;             // the allocating thread: for stack and TLS, the owner
  std::vector<uint64_t> stack;  // at the allocation, innermost first
};

class ReportContext {
 public:
  // Reads the trace at `path` once and collects the context of every event
  // `findings` name, and the blocks of the raced addresses.
  static Status Collect(const std::string& path, const Findings& findings, ReportContext* out);

  // The context of the event at `index`, or nullptr if it was not collected.
  const EventContext* At(uint64_t index) const;
  // The innermost block live at `index` that contains `address` (as collected
  // for a raced address at the first access of its pair, and for the first
  // local access of an atomicity violation), or nullptr. Blocks
  // nest: glibc keeps a thread's static TLS inside its stack block.
  const MemoryBlock* Block(uint64_t address, uint64_t index) const;

  // Frames kept per stack; deeper stacks are cut (the innermost frames are kept).
  static constexpr size_t kMaxFrames = 64;

 private:
  std::unordered_map<uint64_t, EventContext> events_;
  struct Target {
    uint64_t address;
    uint64_t index;
    bool found;
    MemoryBlock block;
  };
  std::vector<Target> targets_;  // sorted by address, then index
};

// Every event a finding names, for passes that need them.
std::vector<EventRef> NamedEvents(const Findings& findings);

}  // namespace seer::predictor
