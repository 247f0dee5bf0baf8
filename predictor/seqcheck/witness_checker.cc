#include "predictor/seqcheck/witness_checker.h"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "predictor/common/sync_ops.h"
#include "predictor/seqcheck/huge_pages.h"
namespace seer::predictor::seqcheck {
namespace {

bool Reads(EventKind k) { return k == EventKind::kRead || k == EventKind::kAtomicLoad || k == EventKind::kAtomicRmw; }
// A free writes every byte of its block (ThreadSanitizer's model).
bool Writes(EventKind k) {
  return k == EventKind::kWrite || k == EventKind::kAtomicStore || k == EventKind::kAtomicRmw || k == EventKind::kFree;
}
bool Accesses(EventKind k) { return Reads(k) || Writes(k); }
// What an allocation does to its block: the rule the engines' lowering follows (sync_ops.h).
bool AllocationWrites(const Event& e) {
  return e.kind == EventKind::kAlloc && AllocationAccess(e) == BlockAccess::kWrite;
}
bool Writes(const Event& e) { return Writes(e.kind) || AllocationWrites(e); }
bool Accesses(const Event& e) {
  return Accesses(e.kind) || (e.kind == EventKind::kAlloc && AllocationAccess(e) != BlockAccess::kNone);
}

// The bytes [first, end) of a range: at least its first byte, without overflow.
std::pair<uint64_t, uint64_t> ByteRange(uint64_t first, uint64_t size) {
  const uint64_t end = first + std::max<uint64_t>(size, 1);
  return {first, end < first ? UINT64_MAX : end};
}
bool Signals(EventKind k) { return k == EventKind::kSignal || k == EventKind::kBarrierArrive; }
bool Waits(EventKind k) {
  return k == EventKind::kWait || k == EventKind::kBarrierDepart || k == EventKind::kCondWaitEnd;
}
bool SharedMode(const Event& e) { return e.mode == static_cast<uint8_t>(LockMode::kShared); }
// Where a lock call would wait, a trylock returns EBUSY and a timed or clock
// lock returns ETIMEDOUT at its timeout: an acquire recorded with any AcquireHow
// but blocking (its aux) never leaves its thread blocked.
bool MayBlockForever(const Event& e) {
  return e.kind != EventKind::kAcquire || e.aux == static_cast<uint64_t>(AcquireHow::kBlocking);
}

std::string Pos(uint64_t index) { return "event " + std::to_string(index); }

}  // namespace

struct WitnessChecker::Replay {
  // The schedule starts with the trace's first `recorded` events in recorded
  // order (their state comes from the one replay of the recorded order, not
  // event by event: a witness late in a long trace runs millions of them).
  size_t recorded = 0;
  // Per thread slot (WitnessChecker::thread_slot_): events run, a prefix.
  std::vector<uint32_t> ran;
  Locks locks;
  // Past the recorded prefix: trace position -> schedule step.
  std::unordered_map<size_t, uint64_t> step;
  // Past the recorded prefix: the last write of each variable slot written
  // there, and the signals run per (object, thread).
  std::unordered_map<uint32_t, int64_t> written;
  std::map<std::pair<uint64_t, uint32_t>, uint32_t> signals_run;
  bool Ran(size_t at) const { return at < recorded || step.count(at) != 0; }
  uint64_t Step(size_t at) const { return at < recorded ? at : step.at(at); }
};

// In recorded order every read sees its recorded write, every signal before a
// wait and every fork before its child have run, and the carried acquires come
// first: only a join before its child's end or a lock taken while held can fail
// (a trace that lost events).
class WitnessChecker::RecordedReplay {
 public:
  // `last_of_slot`: per thread slot, the position of its last event.
  RecordedReplay(WitnessChecker* checker, const std::vector<uint32_t>& last_of_slot)
      : c_(*checker), last_of_slot_(last_of_slot), recent_locks_(size_t{1} << kRecentBits) {
    c_.recorded_ok_ = c_.trace_.size();
  }

  // Event `at`, after each event before it.
  void Step(size_t at) {
    if (stopped_) return;
    if (at % kCheckpoint == 0) {
      Locks held;
      for (const auto& [lock, state] : locks_)
        if (!state.holders.empty()) held.emplace(lock, state);
      c_.locks_at_.push_back(std::move(held));
    }
    const Event& e = c_.trace_[at];
    if (e.kind == EventKind::kJoin) {
      auto slot = c_.slot_of_thread_.find(static_cast<uint32_t>(e.object));
      if (slot != c_.slot_of_thread_.end() && last_of_slot_[slot->second] > at) return Stop(at);
    }
    uint64_t lock = 0;
    if (!LockOf(e, &lock)) return;
    // Most lock events name one of a few locks: a small direct-mapped table
    // of their states (which stay put in the map) saves a hash lookup each.
    Recent& recent = recent_locks_[(lock * 0x9E3779B97F4A7C15ull) >> (64 - kRecentBits)];
    if (recent.state == nullptr || recent.lock != lock) recent = {lock, &locks_[lock]};
    if (!ApplyLock(e, lock, recent.state).ok()) Stop(at);
  }

 private:
  void Stop(size_t at) {
    c_.recorded_ok_ = at;
    stopped_ = true;
  }

  struct Recent {
    uint64_t lock = 0;
    LockState* state = nullptr;  // null: an empty slot
  };
  static constexpr unsigned kRecentBits = 6;
  WitnessChecker& c_;
  const std::vector<uint32_t>& last_of_slot_;
  Locks locks_;
  std::vector<Recent> recent_locks_;
  bool stopped_ = false;
};

WitnessChecker::WitnessChecker(const std::vector<Event>& trace, size_t carried)
    : trace_(trace), carried_(std::min(carried, trace.size())) {
  // Thread slots: thread ids are dense (seer/event.h), so a table finds them
  // without a hash per event; a map takes any id the table cannot.
  std::vector<uint32_t> slot_of_tid;
  auto SlotOf = [&](uint32_t tid) {
    constexpr uint32_t kTable = 1 << 16;
    if (tid < kTable) {
      if (tid >= slot_of_tid.size()) slot_of_tid.resize(tid + 1, UINT32_MAX);
      if (slot_of_tid[tid] != UINT32_MAX) return slot_of_tid[tid];
    }
    auto [it, fresh] = slot_of_thread_.emplace(tid, static_cast<uint32_t>(slot_of_thread_.size()));
    if (fresh) thread_events_.emplace_back();
    if (tid < kTable) slot_of_tid[tid] = it->second;
    return it->second;
  };
  // The bytes each access, allocation and free covers. A free covers what its
  // allocation handed out: the runtime records it with the block's usable size
  // (slack included), an allocation with the requested size; a free of a block
  // no allocation in the trace described keeps its own size.
  // A free's size when an allocation in the trace gave its block (by position).
  // Found in the pass that cuts the bytes (below), each free's before its
  // range is asked for: one pass over the window's events fewer (each pass
  // streams tens of MB).
  std::unordered_map<size_t, uint64_t> free_size;
  std::unordered_map<uint64_t, uint64_t> allocated;  // live block -> requested size
  auto note_block = [&](size_t i) {
    const Event& e = trace[i];
    if (e.kind == EventKind::kAlloc && e.aux != 0) allocated[e.object] = e.aux;
    if (e.kind == EventKind::kFree) {
      auto it = allocated.find(e.object);
      if (it != allocated.end()) {
        free_size[i] = it->second;
        allocated.erase(it);
      }
    }
  };
  auto has_bytes = [&](size_t i) { return trace[i].kind == EventKind::kAlloc || Accesses(trace[i].kind); };
  auto bytes_of = [&](size_t i) {
    const Event& e = trace[i];
    auto it = e.kind == EventKind::kFree ? free_size.find(i) : free_size.end();
    return ByteRange(e.object, it == free_size.end() ? e.aux : it->second);
  };
  // Most ranges repeat one seen shortly before (a loop's variables): a small
  // direct-mapped table of recent ranges keeps their cuts out of the sort and
  // their binary searches below. (Recomputing a range is cheaper than keeping
  // one per event: those are fresh megabytes per window.)
  constexpr unsigned kRecentBits = 12;
  auto recent_slot = [](uint64_t first) { return (first * 0x9E3779B97F4A7C15ull) >> (64 - kRecentBits); };
  // The first pass: each event's thread slot, how many events each thread
  // has and where its last one is, how many events may write; the ends of
  // every range (cuts); and the ranges that accesses cover (reads, writes and
  // the allocations that write or read their block, not frees), each run of
  // repeats once with its number of events, which after the cut mark the runs
  // an access touches (a free writes only those) and count the entries of slots_.
  std::vector<uint64_t> cuts;
  struct Accessed {
    std::pair<uint64_t, uint64_t> bytes;
    size_t events;
  };
  std::vector<Accessed> accessed;
  std::vector<uint32_t> per_slot, last_of_slot;
  size_t may_write = 0;
  ReserveHuge(&thread_slot_, trace.size());
  thread_slot_.resize(trace.size());
  {
    std::vector<std::pair<uint64_t, uint64_t>> recent(size_t{1} << kRecentBits, {1, 0});  // {1, 0}: none
    std::vector<uint32_t> recent_access(size_t{1} << kRecentBits, UINT32_MAX);            // into `accessed`
    for (size_t i = 0; i < trace.size(); ++i) {
      const uint32_t slot = thread_slot_[i] = SlotOf(trace[i].tid);
      if (slot >= per_slot.size()) {
        per_slot.resize(slot + 1, 0);
        last_of_slot.resize(slot + 1, 0);
      }
      ++per_slot[slot];
      last_of_slot[slot] = static_cast<uint32_t>(i);
      if (Writes(trace[i])) ++may_write;
      if (!has_bytes(i)) continue;
      note_block(i);
      const std::pair<uint64_t, uint64_t> bytes = bytes_of(i);
      if (trace[i].kind != EventKind::kFree && Accesses(trace[i])) {
        uint32_t& a = recent_access[recent_slot(bytes.first)];
        if (a != UINT32_MAX && accessed[a].bytes == bytes) {
          ++accessed[a].events;
        } else {
          a = static_cast<uint32_t>(accessed.size());
          accessed.push_back({bytes, 1});
        }
      }
      auto& seen = recent[recent_slot(bytes.first)];
      if (seen == bytes) continue;
      seen = bytes;
      cuts.push_back(bytes.first);
      cuts.push_back(bytes.second);
    }
  }
  // Variables: the bytes cut at every range's ends, so each range covers whole
  // runs of bytes; a run is one variable until an allocation covers it (a reused
  // block is a new variable). A free writes only the runs some access touches.
  // (Written out here, not through predictor/common or the model: the checker
  // shares no code with what it checks.)
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  auto run_of = [&](uint64_t byte) {
    return static_cast<uint32_t>(std::lower_bound(cuts.begin(), cuts.end(), byte) - cuts.begin());
  };
  // Event i's runs [first, end).
  struct Recent {
    std::pair<uint64_t, uint64_t> bytes{1, 0};
    std::pair<uint32_t, uint32_t> runs;
  };
  std::vector<Recent> recent_runs(size_t{1} << kRecentBits);
  auto runs_of = [&](size_t i) {
    const std::pair<uint64_t, uint64_t> bytes = bytes_of(i);
    Recent& r = recent_runs[recent_slot(bytes.first)];
    if (r.bytes != bytes) r = {bytes, {run_of(bytes.first), run_of(bytes.second)}};
    return r.runs;
  };
  std::vector<bool> touched(cuts.size(), false);
  size_t entries = 0;  // of the accesses (frees add a few more)
  for (const Accessed& a : accessed) {
    const uint32_t first_run = run_of(a.bytes.first), end_run = run_of(a.bytes.second);
    for (uint32_t r = first_run; r < end_run; ++r) touched[r] = true;
    entries += a.events * (end_run - first_run);
  }
  std::vector<Accessed>().swap(accessed);
  // The vectors the second pass fills, sized once: grown by doublings, they
  // were a fifth of the checker's page faults, copies included.
  for (size_t slot = 0; slot < per_slot.size(); ++slot) thread_events_[slot].reserve(per_slot[slot]);
  ReserveHuge(&slots_, entries);
  ReserveHuge(&recorded_, entries);
  constexpr uint32_t kNoSlot = UINT32_MAX;
  std::vector<uint32_t> run_slot(cuts.size(), kNoSlot);
  std::vector<int64_t> last_write;  // per variable slot
  ReserveHuge(&thread_pos_, trace.size());
  thread_pos_.resize(trace.size());
  ReserveHuge(&slot_begin_, trace.size() + 1);
  slot_begin_.assign(trace.size() + 1, 0);
  // Per variable slot, its writes (counted here for write_pos_ below), and
  // the positions of the events that write some slot: the pass that fills
  // write_pos_ walks these, not the whole window again.
  std::vector<uint32_t> write_count;
  std::vector<uint32_t> writers;
  writers.reserve(may_write);
  // The second pass: each event's position in its thread, its variables, the
  // write each read saw; and the replay of the recorded order, event by event.
  RecordedReplay replay(this, last_of_slot);
  for (size_t i = 0; i < trace.size(); ++i) {
    const Event& e = trace[i];
    if (e.index != i) dense_ = false;
    if (i > 0 && e.index <= trace[i - 1].index) ascending_ = false;
    std::vector<uint32_t>& events_of_thread = thread_events_[thread_slot_[i]];
    thread_pos_[i] = static_cast<uint32_t>(events_of_thread.size());
    events_of_thread.push_back(static_cast<uint32_t>(i));
    slot_begin_[i] = static_cast<uint32_t>(slots_.size());
    const auto [first_run, end_run] = has_bytes(i) ? runs_of(i) : std::pair<uint32_t, uint32_t>{0, 0};
    if (e.kind == EventKind::kAlloc)
      for (uint32_t r = first_run; r < end_run; ++r) run_slot[r] = kNoSlot;
    if (Accesses(e)) {
      for (uint32_t r = first_run; r < end_run; ++r) {
        if (e.kind == EventKind::kFree && !touched[r]) continue;
        if (run_slot[r] == kNoSlot) {
          run_slot[r] = static_cast<uint32_t>(last_write.size());
          last_write.push_back(-1);
          write_count.push_back(0);
        }
        const uint32_t slot = run_slot[r];
        slots_.push_back(slot);
        recorded_.push_back(Reads(e.kind) ? last_write[slot] : -1);
        if (Writes(e)) {
          last_write[slot] = static_cast<int64_t>(e.index);
          ++write_count[slot];
        }
      }
      if (Writes(e) && slots_.size() > slot_begin_[i]) writers.push_back(static_cast<uint32_t>(i));
    }
    if (e.kind == EventKind::kBranch) has_branches_ = true;
    if (Signals(e.kind)) signals_[e.object][e.tid].push_back(i);
    if (e.kind == EventKind::kFork) fork_of_.emplace(static_cast<uint32_t>(e.object), i);
    replay.Step(i);
  }
  slot_begin_[trace.size()] = static_cast<uint32_t>(slots_.size());
  variables_ = last_write.size();
  if (!dense_ && !ascending_)
    for (size_t i = 0; i < trace.size(); ++i) where_[trace[i].index] = i;
  // Each variable slot's writes, by a counting sort of (slot, position).
  write_begin_.assign(variables_ + 1, 0);
  for (size_t v = 0; v < variables_; ++v) write_begin_[v + 1] = write_begin_[v] + write_count[v];
  write_pos_.resize(write_begin_[variables_]);
  {
    std::vector<uint32_t> fill(write_begin_.begin(), write_begin_.end() - 1);
    for (uint32_t i : writers)
      for (uint32_t k = slot_begin_[i]; k < slot_begin_[i + 1]; ++k) write_pos_[fill[slots_[k]]++] = i;
  }
}

bool WitnessChecker::LockOf(const Event& e, uint64_t* lock) {
  // A cond-wait begin releases its mutex, its end re-acquires it.
  switch (e.kind) {
    case EventKind::kAcquire:
    case EventKind::kRelease: *lock = e.object; return true;
    case EventKind::kCondWaitBegin:
    case EventKind::kCondWaitEnd: *lock = e.aux; return true;
    default: return false;
  }
}

Status WitnessChecker::ApplyLock(const Event& e, Locks* locks) {
  uint64_t lock = 0;
  return LockOf(e, &lock) ? ApplyLock(e, lock, &(*locks)[lock]) : Status::Ok();
}

Status WitnessChecker::ApplyLock(const Event& e, uint64_t lock, LockState* state) {
  const bool acquire = e.kind == EventKind::kAcquire || e.kind == EventKind::kCondWaitEnd;
  const bool shared = e.kind == EventKind::kAcquire && SharedMode(e);
  std::vector<Holder>& holders = state->holders;
  Holder* mine = state->Of(e.tid);
  if (acquire) {
    if (mine != nullptr) {
      ++mine->depth;  // a recursive re-acquisition: only the outermost counts
      return Status::Ok();
    }
    // Another thread's hold excludes this one unless both are in read mode.
    if (std::any_of(holders.begin(), holders.end(), [&](const Holder& h) { return !(h.shared && shared); }))
      return Status::Internal("witness: " + Pos(e.index) + " acquires lock " + std::to_string(lock) +
                              " while another thread holds it");
    holders.push_back({e.tid, 1, shared});
    return Status::Ok();
  }
  if (mine == nullptr) return Status::Ok();  // the trace released a lock it did not hold; nothing to check
  if (--mine->depth == 0) holders.erase(holders.begin() + (mine - holders.data()));
  return Status::Ok();
}

int64_t WitnessChecker::RecordedLastWrite(uint32_t slot, size_t q) const {
  const auto first = write_pos_.begin() + write_begin_[slot];
  const auto it = std::lower_bound(first, write_pos_.begin() + write_begin_[slot + 1], q);
  return it == first ? -1 : static_cast<int64_t>(trace_[*(it - 1)].index);
}

size_t WitnessChecker::RecordedPrefix(const Schedule& schedule) const {
  size_t q = 0;
  for (const Schedule::Run& run : schedule.runs()) {
    size_t at = 0;
    if (!(dense_ || ascending_) || !Position(run.first, &at) || at != q) break;
    // Strictly ascending indices: the run is the next `count` events exactly
    // when its last index is where it should be.
    const size_t end = q + run.count;
    if (end > trace_.size() || trace_[end - 1].index != run.first + run.count - 1) break;
    q = end;
  }
  return std::min(q, recorded_ok_);
}

void WitnessChecker::StartAfterRecorded(size_t q, Replay* r) const {
  r->recorded = q;
  r->ran.assign(slot_of_thread_.size(), 0);
  if (q == 0) return;
  for (size_t slot = 0; slot < thread_events_.size(); ++slot) {
    const std::vector<uint32_t>& events = thread_events_[slot];
    r->ran[slot] = static_cast<uint32_t>(std::lower_bound(events.begin(), events.end(), q) - events.begin());
  }
  // The locks: the checkpoint before q, then the lock events up to q (they
  // replayed in RecordedReplay).
  const size_t c = (q - 1) / kCheckpoint;
  r->locks = locks_at_[c];
  for (size_t at = c * kCheckpoint; at < q; ++at) (void)ApplyLock(trace_[at], &r->locks);
}

bool WitnessChecker::Position(uint64_t index, size_t* at) const {
  if (dense_) {
    *at = index;
    return index < trace_.size();
  }
  if (ascending_) {
    auto it =
        std::lower_bound(trace_.begin(), trace_.end(), index, [](const Event& e, uint64_t i) { return e.index < i; });
    *at = static_cast<size_t>(it - trace_.begin());
    return it != trace_.end() && it->index == index;
  }
  auto it = where_.find(index);
  if (it == where_.end()) return false;
  *at = it->second;
  return true;
}

Status WitnessChecker::Run(const Schedule& schedule, const std::vector<uint64_t>& enabled, Replay* r) const {
  // Reads whose write differs from the trace's: (event, entry of slots_, the write seen).
  std::vector<std::tuple<size_t, uint32_t, int64_t>> reads;
  const size_t q = RecordedPrefix(schedule);
  StartAfterRecorded(q, r);
  size_t carried_run = std::min(q, carried_);
  auto last_write = [&](uint32_t slot) {
    auto it = r->written.find(slot);
    return it != r->written.end() ? it->second : RecordedLastWrite(slot, q);
  };
  auto signals_run = [&](uint64_t object, uint32_t tid, const std::vector<size_t>& positions) {
    auto it = r->signals_run.find({object, tid});
    return static_cast<size_t>(std::lower_bound(positions.begin(), positions.end(), q) - positions.begin()) +
           (it == r->signals_run.end() ? 0 : it->second);
  };

  // What an event needs before it can run (or be enabled): its thread's fork,
  // the signals recorded before a wait, the joined thread's end.
  auto prerequisites = [&](size_t at) -> Status {
    const Event& e = trace_[at];
    if (at >= carried_ && carried_run < carried_)
      return Status::Internal("witness: " + Pos(e.index) + " runs before the window's carried acquires");
    if (thread_pos_[at] == 0) {
      auto f = fork_of_.find(e.tid);
      if (f != fork_of_.end() && f->second < at && !r->Ran(f->second))
        return Status::Internal("witness: thread " + std::to_string(e.tid) + " runs before its fork");
    }
    if (Waits(e.kind)) {
      // Every signal on the object recorded before the wait has run.
      auto so = signals_.find(e.object);
      if (so != signals_.end())
        for (const auto& [tid, positions] : so->second) {
          const size_t before = std::lower_bound(positions.begin(), positions.end(), at) - positions.begin();
          if (signals_run(e.object, tid, positions) < before)
            return Status::Internal("witness: wait " + Pos(e.index) + " runs before a signal of thread " +
                                    std::to_string(tid) + " recorded before it");
        }
    }
    if (e.kind == EventKind::kJoin) {
      const uint32_t child = static_cast<uint32_t>(e.object);
      auto slot = slot_of_thread_.find(child);
      if (slot != slot_of_thread_.end() && r->ran[slot->second] != thread_events_[slot->second].size())
        return Status::Internal("witness: join " + Pos(e.index) + " before thread " + std::to_string(child) + " ends");
    }
    return Status::Ok();
  };

  // The positions after the recorded prefix, one by one; step s of the schedule.
  uint64_t first_step = 0;  // the step of the run's first position
  for (const Schedule::Run& run : schedule.runs()) {
    const uint64_t skip = first_step < q ? std::min<uint64_t>(q - first_step, run.count) : 0;
    for (uint64_t k = skip; k < run.count; ++k) {
      const uint64_t s = first_step + k;
      const uint64_t index = run.first + k;
      size_t at = 0;
      if (!Position(index, &at)) return Status::Internal("witness: " + Pos(index) + " is not in the trace");
      const Event& e = trace_[at];
      if (r->Ran(at)) return Status::Internal("witness: " + Pos(e.index) + " runs twice");
      r->step[at] = s;
      uint32_t& ran = r->ran[thread_slot_[at]];
      if (thread_pos_[at] != ran)
        return Status::Internal("witness: " + Pos(e.index) + " is not the next event of thread " +
                                std::to_string(e.tid) + " (runs " + std::to_string(ran) + " events before it)");
      ++ran;
      Status ready = prerequisites(at);
      if (!ready.ok()) return ready;
      if (at < carried_) ++carried_run;
      for (uint32_t k2 = slot_begin_[at]; k2 < slot_begin_[at + 1]; ++k2) {
        const int64_t saw = Reads(e.kind) ? last_write(slots_[k2]) : recorded_[k2];
        if (saw != recorded_[k2]) reads.push_back({at, k2, saw});
        if (Writes(e)) r->written[slots_[k2]] = static_cast<int64_t>(e.index);
      }
      if (Signals(e.kind)) ++r->signals_run[{e.object, e.tid}];
      Status locked = ApplyLock(e, &r->locks);
      if (!locked.ok()) return locked;
    }
    first_step += run.count;
  }

  std::map<uint32_t, uint64_t> next_enabled;  // thread -> position of its enabled event
  for (uint64_t index : enabled) {
    size_t at = 0;
    if (!Position(index, &at)) return Status::Internal("witness: " + Pos(index) + " is not in the trace");
    const uint32_t t = trace_[at].tid;
    if (r->ran[thread_slot_[at]] != thread_pos_[at])
      return Status::Internal("witness: " + Pos(index) + " is not the next event of thread " + std::to_string(t));
    Status ready = prerequisites(at);
    if (!ready.ok()) return Status::Internal(ready.message() + " (" + Pos(index) + " must be enabled)");
    next_enabled[t] = thread_pos_[at];
  }
  // A read keeps its recorded write when a branch after it runs (without branch
  // events: when any later event of its thread runs or must be reached). Only
  // reads that saw another write can break it (a recorded prefix sees the
  // trace's writes).
  for (auto [at, k, saw] : reads) {
    const Event& e = trace_[at];
    const uint32_t ran = r->ran[thread_slot_[at]];
    bool followed = false;
    if (has_branches_) {
      const auto& te = thread_events_[thread_slot_[at]];
      for (uint32_t p = thread_pos_[at] + 1; p < ran && !followed; ++p)
        followed = trace_[te[p]].kind == EventKind::kBranch;
    } else {
      followed = thread_pos_[at] + 1 < ran || next_enabled.count(e.tid);
    }
    if (followed)
      return Status::Internal("witness: read " + Pos(e.index) + " sees write " + std::to_string(saw) +
                              " but the trace had " + std::to_string(recorded_[k]));
  }
  return Status::Ok();
}

bool WitnessChecker::ShareVariable(size_t a, size_t b, size_t c) const {
  auto slots = [&](size_t at) {
    std::vector<uint32_t> v(slots_.begin() + slot_begin_[at], slots_.begin() + slot_begin_[at + 1]);
    std::sort(v.begin(), v.end());
    return v;
  };
  const std::vector<uint32_t> sa = slots(a), sb = slots(b), sc = slots(c);
  std::vector<uint32_t> ab;
  std::set_intersection(sa.begin(), sa.end(), sb.begin(), sb.end(), std::back_inserter(ab));
  return std::any_of(ab.begin(), ab.end(), [&](uint32_t s) { return std::binary_search(sc.begin(), sc.end(), s); });
}

Status WitnessChecker::CheckFeasible(const Schedule& schedule, const std::vector<uint64_t>& enabled) const {
  Replay r;
  return Run(schedule, enabled, &r);
}

Status WitnessChecker::CheckDeadlock(const Deadlock& d) const {
  if (d.cycle.size() < 2) return Status::Internal("deadlock witness: a cycle needs two threads");
  std::vector<uint64_t> enabled;
  for (const auto& t : d.cycle) enabled.push_back(t.blocked_acquire.index);
  for (size_t i = 0; i < d.cycle.size(); ++i)
    for (size_t j = i + 1; j < d.cycle.size(); ++j)
      if (d.cycle[i].tid == d.cycle[j].tid) return Status::Internal("deadlock witness: a thread appears twice");
  Replay r;
  Status s = Run(d.witness.schedule, enabled, &r);
  if (!s.ok()) return s;
  for (size_t i = 0; i < d.cycle.size(); ++i) {
    const DeadlockThread& me = d.cycle[i];
    const DeadlockThread& next = d.cycle[(i + 1) % d.cycle.size()];
    size_t at = 0;
    if (!Position(me.blocked_acquire.index, &at)) return Status::Internal("deadlock witness: bad blocked event");
    const Event& b = trace_[at];
    const bool is_acquire = b.kind == EventKind::kAcquire || b.kind == EventKind::kCondWaitEnd;
    const uint64_t wanted = b.kind == EventKind::kAcquire ? b.object : b.aux;
    if (!is_acquire || b.tid != me.tid || wanted != me.wanted_lock || next.held_lock != me.wanted_lock)
      return Status::Internal("deadlock witness: thread " + std::to_string(me.tid) +
                              " is not blocked acquiring the next thread's lock");
    if (!MayBlockForever(b))
      return Status::Internal("deadlock witness: thread " + std::to_string(me.tid) + "'s request " + Pos(b.index) +
                              " is a trylock or timed lock, which fails instead of blocking");
    size_t held = 0;
    if (!Position(next.held_acquire.index, &held) || !r.Ran(held))
      return Status::Internal("deadlock witness: " + Pos(next.held_acquire.index) + " has not run");
    const LockState& l = r.locks[wanted];
    const bool shared_request = b.kind == EventKind::kAcquire && SharedMode(b);
    const Holder* next_hold = l.Of(next.tid);
    if (next_hold == nullptr || (next_hold->shared && shared_request))
      return Status::Internal("deadlock witness: lock " + std::to_string(wanted) + " is not held by thread " +
                              std::to_string(next.tid) + " in a mode that blocks thread " + std::to_string(me.tid));
    if (l.Of(me.tid) != nullptr)
      return Status::Internal("deadlock witness: thread " + std::to_string(me.tid) +
                              " already holds the lock it wants");
  }
  return Status::Ok();
}

Status WitnessChecker::CheckAtomicity(const AtomicityViolation& v) const {
  Replay r;
  Status s = Run(v.witness.schedule, {}, &r);
  if (!s.ok()) return s;
  size_t a = 0, b = 0, c = 0;
  if (!Position(v.local_first.index, &a) || !Position(v.remote.index, &b) || !Position(v.local_second.index, &c))
    return Status::Internal("atomicity witness: an event is not in the trace");
  const Event &e1 = trace_[a], &e = trace_[b], &e2 = trace_[c];
  if (e1.tid != e2.tid || e.tid == e1.tid) return Status::Internal("atomicity witness: wrong threads");
  if (!ShareVariable(a, b, c)) return Status::Internal("atomicity witness: not one variable");
  auto kind = [](const Event& x) { return Writes(x) ? "write" : (Reads(x.kind) ? "read" : "other"); };
  const std::string pattern = std::string(kind(e1)) + "-" + kind(e) + "-" + kind(e2);
  if (pattern != v.pattern)
    return Status::Internal("atomicity witness: kinds " + pattern + " do not match " + v.pattern);
  for (size_t x : {a, b, c})
    if (!r.Ran(x)) return Status::Internal("atomicity witness: " + Pos(trace_[x].index) + " does not run");
  if (!(r.Step(a) < r.Step(b) && r.Step(b) < r.Step(c)))
    return Status::Internal("atomicity witness: the remote access is not between the local ones");
  return Status::Ok();
}

Status WitnessChecker::CheckRace(const Schedule& schedule, const EventRef& a, const EventRef& b) const {
  Replay r;
  Status s = Run(schedule, {a.index, b.index}, &r);
  if (!s.ok()) return s;
  size_t x = 0, y = 0;
  if (!Position(a.index, &x) || !Position(b.index, &y)) return Status::Internal("race witness: bad events");
  const Event &ea = trace_[x], &eb = trace_[y];
  const bool atomic_pair = (ea.kind >= EventKind::kAtomicLoad && ea.kind <= EventKind::kAtomicRmw) &&
                           (eb.kind >= EventKind::kAtomicLoad && eb.kind <= EventKind::kAtomicRmw);
  // A free is a plain write of its block: it conflicts with any access to a byte
  // of it, atomic or not.
  const bool one_variable = ShareVariable(x, y, y);
  if (ea.tid == eb.tid || !one_variable || !(Writes(ea) || Writes(eb)) || atomic_pair)
    return Status::Internal("race witness: the events do not conflict");
  return Status::Ok();
}

}  // namespace seer::predictor::seqcheck
