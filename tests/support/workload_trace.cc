#include "tests/support/workload_trace.h"

#include <algorithm>
#include <random>

namespace seer::test {

std::vector<Event> WorkloadTrace(const WorkloadOptions& o, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Event> out;
  out.reserve(o.events + 2 * o.threads + 16);
  std::vector<int> holder(o.locks, -1);
  std::vector<std::vector<uint32_t>> held(o.threads);
  auto emit = [&](uint32_t t, EventKind kind, uint64_t object, uint64_t pc, uint64_t aux = 0) {
    Event e;
    e.index = out.size();
    e.tid = t;
    e.kind = kind;
    e.object = object;
    e.aux = aux;
    e.pc = pc;
    out.push_back(e);
  };
  auto location = [&](uint32_t t) { return 1000 * (t + 1) + rng() % 40; };
  if (o.fork_join)
    for (uint32_t t = 1; t < o.threads; ++t) emit(0, EventKind::kFork, t, 1);
  for (uint64_t i = 0; i < o.events; ++i) {
    const uint32_t t = static_cast<uint32_t>(rng() % o.threads);
    const unsigned r = static_cast<unsigned>(rng() % 100);
    if (r < 12 && held[t].size() < 2) {
      const uint32_t l = static_cast<uint32_t>(rng() % o.locks);
      const bool again = o.reentrant && holder[l] == static_cast<int>(t);
      if (holder[l] != -1 && !again) continue;
      holder[l] = static_cast<int>(t);
      held[t].push_back(l);
      emit(t, EventKind::kAcquire, l, location(t));
    } else if (r < 24 && !held[t].empty()) {
      const uint32_t l = held[t].back();
      held[t].pop_back();
      if (std::find(held[t].begin(), held[t].end(), l) == held[t].end()) holder[l] = -1;
      emit(t, EventKind::kRelease, l, location(t));
    } else {
      const uint64_t v = rng() % o.variables;
      emit(t, r < 62 ? EventKind::kRead : EventKind::kWrite, o.address_base + v * o.size, location(t), o.size);
    }
  }
  for (uint32_t t = 0; t < o.threads; ++t)
    while (!held[t].empty()) {
      emit(t, EventKind::kRelease, held[t].back(), location(t));
      held[t].pop_back();
    }
  if (o.fork_join)
    for (uint32_t t = 1; t < o.threads; ++t) emit(0, EventKind::kJoin, t, 2);
  return out;
}

}  // namespace seer::test
