#include "tests/support/random_trace.h"

#include <algorithm>
#include <map>

namespace seer::test {
namespace {

struct Holder {
  int exclusive = -1;  // thread holding it exclusively
  int shared = 0;      // number of shared holders
};

struct ThreadState {
  bool started = false;
  bool finished = false;
  uint32_t budget = 0;                          // accesses/acquires left
  std::vector<std::pair<uint32_t, bool>> held;  // (lock, shared), innermost last
};

}  // namespace

std::vector<Event> RandomTrace(const RandomTraceOptions& o, uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto chance = [&](double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; };
  std::vector<Event> out;
  std::vector<ThreadState> th(o.threads);
  std::map<uint32_t, Holder> locks;
  uint64_t signals_sent = 0;
  auto emit = [&](uint32_t t, EventKind k, uint64_t obj, uint64_t aux = 0, uint8_t mode = 0) {
    Event e;
    e.index = out.size();
    e.tid = t;
    e.kind = k;
    e.object = obj;
    e.aux = aux;
    e.mode = mode;
    e.pc = 1000 * (t + 1) + out.size();  // a distinct program point per event
    out.push_back(e);
  };
  const uint32_t per_thread = std::max<uint32_t>(1, o.events / std::max<uint32_t>(1, o.threads));
  for (auto& t : th) t.budget = per_thread;
  th[0].started = true;
  uint32_t forked = 1;
  std::vector<bool> joined(o.threads, false);
  if (!o.fork_join)
    for (auto& t : th) t.started = true;

  while (true) {
    // Runnable: started, not finished; main may still have forks or joins to do.
    std::vector<uint32_t> runnable;
    for (uint32_t t = 0; t < o.threads; ++t)
      if (th[t].started && !th[t].finished) runnable.push_back(t);
    if (runnable.empty()) break;
    const uint32_t t = runnable[rng() % runnable.size()];
    ThreadState& s = th[t];

    if (t == 0 && o.fork_join && forked < o.threads && (s.budget == 0 || chance(0.5))) {
      emit(0, EventKind::kFork, forked);
      th[forked++].started = true;
      continue;
    }
    if (s.budget == 0) {
      if (!s.held.empty()) {  // release innermost
        auto [l, sh] = s.held.back();
        s.held.pop_back();
        if (sh)
          --locks[l].shared;
        else
          locks[l].exclusive = -1;
        emit(t, EventKind::kRelease, l, 0, sh ? 1 : 0);
        continue;
      }
      if (t == 0 && o.fork_join) {
        // Main joins every child, each after the child's last event.
        bool waiting = false;
        for (uint32_t c = 1; c < o.threads && !waiting; ++c) {
          if (joined[c]) continue;
          if (!th[c].finished) {
            waiting = true;
            break;
          }
          emit(0, EventKind::kJoin, c);
          joined[c] = true;
          waiting = true;  // one event per step
        }
        if (waiting) continue;
      }
      s.finished = true;
      continue;
    }

    // Choose an action: acquire, release, access, signal/wait.
    const double r = std::uniform_real_distribution<double>(0, 1)(rng);
    if (r < 0.25 && o.locks > 0 && s.held.size() < o.max_nesting) {
      uint32_t l = rng() % o.locks;
      bool held_by_me = std::any_of(s.held.begin(), s.held.end(), [&](auto& h) { return h.first == l; });
      if (held_by_me) continue;
      bool sh = o.rwlocks && chance(0.4);
      Holder& h = locks[l];
      if (h.exclusive >= 0 || (!sh && h.shared > 0)) continue;  // would block: pick again
      if (sh)
        ++h.shared;
      else
        h.exclusive = static_cast<int>(t);
      s.held.push_back({l, sh});
      // A trylock or timed lock that got the lock (chance() only when asked
      // for: the traces of other options stay what they were).
      AcquireHow how = AcquireHow::kBlocking;
      if (o.nonblocking > 0 && chance(o.nonblocking)) how = chance(0.5) ? AcquireHow::kTry : AcquireHow::kTimed;
      emit(t, EventKind::kAcquire, l, static_cast<uint64_t>(how), sh ? 1 : 0);
      --s.budget;
    } else if (r < 0.40 && !s.held.empty()) {
      auto [l, sh] = s.held.back();
      s.held.pop_back();
      if (sh)
        --locks[l].shared;
      else
        locks[l].exclusive = -1;
      emit(t, EventKind::kRelease, l, 0, sh ? 1 : 0);
    } else if (r < 0.47 && o.signals) {
      if (chance(0.5)) {
        emit(t, EventKind::kSignal, 0);
        ++signals_sent;
      } else if (signals_sent > 0) {
        emit(t, EventKind::kWait, 0);
      }
      --s.budget;
    } else {
      uint64_t v = rng() % std::max<uint32_t>(1, o.variables);
      // A free (a write of the variable) or an alloc (a fresh one), chance()
      // only when asked for: the traces of other options stay what they were.
      if (o.frees > 0 && chance(o.frees)) {
        emit(t, chance(0.5) ? EventKind::kFree : EventKind::kAlloc, v, 1);
        --s.budget;
        continue;
      }
      bool w = chance(o.write_fraction);
      if (o.atomics && chance(0.2)) {
        // Every C11 order, read-modify-writes and now and then a fence, so that
        // the engines' memory-order rules are under the properties too.
        constexpr MemoryOrder kOrders[] = {MemoryOrder::kRelaxed, MemoryOrder::kAcquire, MemoryOrder::kRelease,
                                           MemoryOrder::kAcqRel, MemoryOrder::kSeqCst};
        const auto order = static_cast<uint8_t>(kOrders[rng() % 5]);
        if (chance(0.1))
          emit(t, EventKind::kFence, 0, 0, order);
        else
          emit(t, w ? (chance(0.3) ? EventKind::kAtomicRmw : EventKind::kAtomicStore) : EventKind::kAtomicLoad, v, 1,
               order);
      } else
        emit(t, w ? EventKind::kWrite : EventKind::kRead, v, 1);
      --s.budget;
    }
  }
  return out;
}

}  // namespace seer::test
