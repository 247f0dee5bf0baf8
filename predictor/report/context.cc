#include "predictor/report/context.h"

#include <algorithm>
#include <map>
#include <memory>

#include "predictor/common/covered_keys.h"
#include "seer/trace.h"

namespace seer::predictor {
namespace {

std::vector<uint64_t> StackOf(const Event& e, const std::vector<uint64_t>& call_sites) {
  std::vector<uint64_t> stack;
  stack.push_back(e.pc);
  for (auto it = call_sites.rbegin(); it != call_sites.rend() && stack.size() < ReportContext::kMaxFrames; ++it)
    stack.push_back(*it);
  return stack;
}

void RemoveLock(std::vector<HeldLock>* locks, uint64_t lock) {
  for (auto it = locks->rbegin(); it != locks->rend(); ++it) {
    if (it->lock == lock) {
      locks->erase(std::next(it).base());
      return;
    }
  }
}

}  // namespace

std::vector<EventRef> NamedEvents(const Findings& findings) {
  std::vector<EventRef> out;
  for (const RaceResult& r : findings.races)
    for (const RacePair& p : r.pairs) {
      out.push_back(p.first);
      out.push_back(p.second);
    }
  for (const Deadlock& d : findings.deadlocks)
    for (const DeadlockThread& t : d.cycle) {
      out.push_back(t.held_acquire);
      out.push_back(t.blocked_acquire);
    }
  for (const LockOrderInversion& inv : findings.lock_order)
    for (const DeadlockThread& t : inv.cycle) {
      out.push_back(t.held_acquire);
      out.push_back(t.blocked_acquire);
    }
  for (const auto* list : {&findings.atomicity, &findings.atomicity_candidates})
    for (const AtomicityViolation& a : *list) {
      out.push_back(a.local_first);
      out.push_back(a.remote);
      out.push_back(a.local_second);
    }
  return out;
}

Status ReportContext::Collect(const std::string& path, const Findings& findings, ReportContext* out) {
  std::vector<uint64_t> wanted;
  for (const EventRef& e : NamedEvents(findings)) wanted.push_back(e.index);
  std::sort(wanted.begin(), wanted.end());
  wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
  for (const RaceResult& r : findings.races)
    for (const RacePair& p : r.pairs)
      if (IsMemoryEvent(p.first.kind)) out->targets_.push_back({p.first.object, p.first.index, false, {}});
  for (const auto* list : {&findings.atomicity, &findings.atomicity_candidates})
    for (const AtomicityViolation& a : *list)
      if (IsMemoryEvent(a.local_first.kind))
        out->targets_.push_back({a.local_first.object, a.local_first.index, false, {}});
  std::sort(out->targets_.begin(), out->targets_.end(), [](const Target& a, const Target& b) {
    return a.address != b.address ? a.address < b.address : a.index < b.index;
  });
  if (wanted.empty()) return Status::Ok();

  std::unique_ptr<TraceReader> reader;
  Status s = TraceReader::Open(path, &reader);
  if (!s.ok()) return s;
  std::unordered_map<uint32_t, std::vector<uint64_t>> call_sites;
  std::unordered_map<uint32_t, std::vector<HeldLock>> locks;
  std::map<uint64_t, std::vector<size_t>> targets_by_block;  // by block address
  size_t next = 0;
  std::vector<Event> batch;
  // Every allocation that matters precedes its target, itself a wanted event.
  while (next < wanted.size()) {
    s = reader->Next(&batch);
    if (!s.ok()) return s;
    if (batch.empty()) break;
    for (const Event& e : batch) {
      // The context of an event is the state before it.
      if (next < wanted.size() && wanted[next] == e.index) {
        EventContext& c = out->events_[e.index];
        c.stack = StackOf(e, call_sites[e.tid]);
        c.locks = locks[e.tid];
        ++next;
      }
      switch (e.kind) {
        case EventKind::kFuncEntry: call_sites[e.tid].push_back(e.pc); break;
        case EventKind::kFuncExit: {
          auto& sites = call_sites[e.tid];
          if (!sites.empty()) sites.pop_back();
          break;
        }
        case EventKind::kAcquire:
          locks[e.tid].push_back({e.object, e.mode == static_cast<uint8_t>(LockMode::kShared)});
          break;
        case EventKind::kRelease: RemoveLock(&locks[e.tid], e.object); break;
        case EventKind::kCondWaitBegin: RemoveLock(&locks[e.tid], e.aux); break;
        case EventKind::kCondWaitEnd: locks[e.tid].push_back({e.aux, false}); break;
        case EventKind::kAlloc: {
          const uint64_t size = std::max<uint64_t>(e.aux, 1);
          auto it = std::lower_bound(out->targets_.begin(), out->targets_.end(), e.object,
                                     [](const Target& t, uint64_t a) { return t.address < a; });
          for (; it != out->targets_.end() && it->address - e.object < size; ++it) {
            // An allocation's own write (sync_ops.h) is described by the block it makes.
            if (it->index < e.index) continue;
            // A live block inside this one is the more specific description (a
            // thread's TLS inside its stack, whichever came first).
            const MemoryBlock& old = it->block;
            if (it->found && old.address >= e.object && old.address - e.object + old.size <= size && old.size < size)
              continue;
            it->found = true;
            it->block = {e.object, e.aux, static_cast<AllocRegion>(e.mode), e.index,
                         e.pc,     e.tid, StackOf(e, call_sites[e.tid])};
            targets_by_block[e.object].push_back(static_cast<size_t>(it - out->targets_.begin()));
          }
          break;
        }
        case EventKind::kFree: {
          // Every block inside the freed range dies with it (a thread's TLS with
          // its stack). An unknown size (0) frees the block at the address.
          const auto [first, last] = CoveredKeys(targets_by_block, e.object, e.aux);
          for (auto it = first; it != last; ++it) {
            for (size_t i : it->second) {
              Target& t = out->targets_[i];
              if (t.found && t.block.address == it->first && t.index > e.index) t.found = false;
            }
          }
          targets_by_block.erase(first, last);
          break;
        }
        default: break;
      }
    }
  }
  return Status::Ok();
}

const EventContext* ReportContext::At(uint64_t index) const {
  auto it = events_.find(index);
  return it == events_.end() ? nullptr : &it->second;
}

const MemoryBlock* ReportContext::Block(uint64_t address, uint64_t index) const {
  auto it = std::lower_bound(targets_.begin(), targets_.end(), address,
                             [](const Target& t, uint64_t a) { return t.address < a; });
  for (; it != targets_.end() && it->address == address; ++it)
    if (it->index == index) return it->found ? &it->block : nullptr;
  return nullptr;
}

}  // namespace seer::predictor
