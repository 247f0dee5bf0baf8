// SeqCheck speed: deadlock and atomicity prediction end to end (model build,
// candidates, feasibility checks, witness validation) on generated traces of
// 8 threads and 50 locks with nested locking, at 10k, 100k, 1M (and 10M) events,
// and atomicity on a thread pool whose tasks are handed off by signal/wait.
// Run: build/bench/seer_seqcheck_bench --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <random>
#include <vector>

#include "predictor/seqcheck/atomicity.h"
#include "predictor/seqcheck/deadlocks.h"
#include "predictor/seqcheck/trace_model.h"

namespace seer::predictor::seqcheck {
namespace {

template <typename Plan>
void SkipTryLock(Plan* plan, size_t at) {
  const uint64_t lock = (*plan)[at].object;
  for (size_t k = at + 1; k < plan->size(); ++k)
    if ((*plan)[k].kind == EventKind::kRelease && (*plan)[k].object == lock) {
      plan->erase(plan->begin() + k);
      break;
    }
  plan->erase(plan->begin() + at);
}

// A well-formed trace: thread 0 forks 8 workers and joins them. Each worker
// runs transactions that take 1-3 locks (in increasing order, except one in
// 2000 transactions that takes two in decreasing order), access variables the
// outermost lock protects, sometimes touch an unprotected counter, and release.
void Append(std::vector<Event>* out, uint32_t t, EventKind k, uint64_t object, uint64_t pc, uint64_t aux) {
  Event e;
  e.index = out->size();
  e.tid = t;
  e.kind = k;
  e.object = object;
  e.pc = pc;
  e.aux = aux;
  out->push_back(e);
}

// A random scheduler interleaves the workers without breaking lock semantics.
std::vector<Event> Generate(uint64_t target, uint64_t seed) {
  constexpr uint32_t kWorkers = 8, kLocks = 50, kVarsPerLock = 4, kRacyVars = 4;
  std::mt19937_64 rng(seed);
  std::vector<Event> out;
  out.reserve(target + 64);
  auto emit = [&](uint32_t t, EventKind k, uint64_t obj, uint64_t pc, uint64_t aux = 0) {
    Append(&out, t, k, obj, pc, aux);
  };
  // `optional`: a try-lock; when busy the thread skips it and its release (the
  // inverted acquisitions, so that the generated run itself never deadlocks).
  struct Step {
    EventKind kind;
    uint64_t object;
    uint64_t pc;
    bool optional = false;
  };
  std::vector<std::vector<Step>> plan(kWorkers + 1);
  std::vector<size_t> next(kWorkers + 1, 0);
  std::vector<int> holder(kLocks, -1);
  for (uint32_t t = 1; t <= kWorkers; ++t) emit(0, EventKind::kFork, t, 1);
  auto make_transaction = [&](uint32_t t) {
    std::vector<Step>& p = plan[t];
    p.clear();
    next[t] = 0;
    const uint32_t depth = 1 + rng() % 3;
    std::vector<uint32_t> locks;
    while (locks.size() < depth) {
      uint32_t l = rng() % kLocks;
      if (std::find(locks.begin(), locks.end(), l) == locks.end()) locks.push_back(l);
    }
    std::sort(locks.begin(), locks.end());
    const bool inverted = depth >= 2 && rng() % 2000 == 0;  // a rare inversion
    if (inverted) std::swap(locks[0], locks[1]);
    for (size_t i = 0; i < locks.size(); ++i)
      p.push_back({EventKind::kAcquire, locks[i], 100 + locks[i], inverted && i == 1});
    const uint32_t accesses = 2 + rng() % 5;
    for (uint32_t a = 0; a < accesses; ++a) {
      const uint64_t var = locks[0] * kVarsPerLock + rng() % kVarsPerLock;
      const bool write = rng() % 3 == 0;
      p.push_back({write ? EventKind::kWrite : EventKind::kRead, var * 8 + 0x10000, 1000 + 10 * t + write});
    }
    if (rng() % 50 == 0) {
      const uint64_t racy = 0x90000 + 8 * (rng() % kRacyVars);
      p.push_back({EventKind::kRead, racy, 2000 + t});
      p.push_back({EventKind::kWrite, racy, 2100 + t});
    }
    for (auto it = locks.rbegin(); it != locks.rend(); ++it) p.push_back({EventKind::kRelease, *it, 200 + *it});
  };
  for (uint32_t t = 1; t <= kWorkers; ++t) make_transaction(t);
  while (out.size() < target) {
    const uint32_t t = 1 + rng() % kWorkers;
    // Run a few steps of t, stopping at a lock someone else holds.
    for (int burst = 1 + rng() % 8; burst > 0 && out.size() < target; --burst) {
      if (next[t] == plan[t].size()) make_transaction(t);
      const Step& s = plan[t][next[t]];
      if (s.kind == EventKind::kAcquire && holder[s.object] >= 0) {
        if (!s.optional) break;
        SkipTryLock(&plan[t], next[t]);
        continue;
      }
      if (s.kind == EventKind::kAcquire) holder[s.object] = static_cast<int>(t);
      if (s.kind == EventKind::kRelease) holder[s.object] = -1;
      emit(t, s.kind, s.object, s.pc, s.kind == EventKind::kRead || s.kind == EventKind::kWrite ? 8 : 0);
      ++next[t];
    }
  }
  // Let every worker finish its transaction, then join them all.
  for (bool progress = true; progress;) {
    progress = false;
    for (uint32_t t = 1; t <= kWorkers; ++t) {
      while (next[t] < plan[t].size()) {
        const Step& s = plan[t][next[t]];
        if (s.kind == EventKind::kAcquire && holder[s.object] >= 0) {
          if (!s.optional) break;
          SkipTryLock(&plan[t], next[t]);
          continue;
        }
        if (s.kind == EventKind::kAcquire) holder[s.object] = static_cast<int>(t);
        if (s.kind == EventKind::kRelease) holder[s.object] = -1;
        emit(t, s.kind, s.object, s.pc, s.kind == EventKind::kRead || s.kind == EventKind::kWrite ? 8 : 0);
        ++next[t];
        progress = true;
      }
    }
  }
  for (uint32_t t = 1; t <= kWorkers; ++t) emit(0, EventKind::kJoin, t, 2);
  return out;
}

const std::vector<Event>& Trace(uint64_t events) {
  static std::map<uint64_t, std::vector<Event>> cache;
  auto it = cache.find(events);
  if (it == cache.end()) it = cache.emplace(events, Generate(events, 42)).first;
  return it->second;
}

// `seconds`: wall time of the whole analysis (model, candidates, filters, checks,
// witness validation), so us_per_candidate is the end-to-end cost of a candidate;
// us_per_check is the time inside the feasibility checks only.
void Report(benchmark::State& state, const SeqCheckStats& s, size_t findings, double seconds) {
  state.counters["findings"] = static_cast<double>(findings);
  state.counters["candidates"] = static_cast<double>(s.candidates);
  state.counters["us_per_candidate"] = s.candidates ? 1e6 * seconds / static_cast<double>(s.candidates) : 0;
  state.counters["filtered"] = static_cast<double>(s.filtered);
  state.counters["forced"] = static_cast<double>(s.forced);
  state.counters["checks"] = static_cast<double>(s.checks);
  state.counters["us_per_check"] = s.checks ? 1e6 * s.check_seconds / static_cast<double>(s.checks) : 0;
  state.counters["window_per_check"] = s.checks ? static_cast<double>(s.window_events) / s.checks : 0;
  state.counters["invalid"] = static_cast<double>(s.invalid_witnesses);
}

void BM_Deadlock(benchmark::State& state) {
  const std::vector<Event>& trace = Trace(state.range(0));
  SeqCheckStats stats;
  size_t findings = 0;
  double seconds = 0;
  for (auto _ : state) {
    stats = {};
    const auto start = std::chrono::steady_clock::now();
    TraceModel model(trace);
    findings = PredictDeadlocks(model, DeadlockOptions{}, &stats).size();
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  Report(state, stats, findings, seconds);
}

void RunAtomicity(benchmark::State& state, const std::vector<Event>& trace, const AtomicityOptions& options) {
  SeqCheckStats stats;
  size_t findings = 0;
  double seconds = 0;
  for (auto _ : state) {
    stats = {};
    const auto start = std::chrono::steady_clock::now();
    TraceModel model(trace);
    findings = PredictAtomicityViolations(model, options, &stats).size();
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  Report(state, stats, findings, seconds);
}

void BM_Atomicity(benchmark::State& state) { RunAtomicity(state, Trace(state.range(0)), AtomicityOptions{}); }

// A thread pool: main writes `vars` variables and forks 8 workers; each task is
// taken after a wait (the queue's signal) and ends with a signal, and does 4
// random accesses; main joins the workers and reads every variable. Hard orders
// (signal/wait, fork/join) put most intruders between their pair's accesses.
std::vector<Event> HandOffTrace(uint64_t events, uint32_t vars) {
  std::vector<Event> out;
  std::mt19937_64 rng(7);
  auto emit = [&](uint32_t t, EventKind k, uint64_t object, uint64_t pc) {
    Append(&out, t, k, object, pc, k == EventKind::kRead || k == EventKind::kWrite ? 8 : 0);
  };
  for (uint32_t v = 0; v < vars; ++v) emit(0, EventKind::kWrite, 1000 + v, 1);
  for (uint32_t t = 1; t <= 8; ++t) emit(0, EventKind::kFork, t, 2);
  while (out.size() < events) {
    const uint32_t t = 1 + rng() % 8;
    emit(t, EventKind::kAcquire, 1, 10);
    emit(t, EventKind::kWait, 5, 11);
    emit(t, EventKind::kRelease, 1, 12);
    for (int k = 0; k < 4; ++k) {
      const uint64_t v = rng() % vars;
      emit(t, rng() % 2 ? EventKind::kWrite : EventKind::kRead, 1000 + v, 20 + k + 10 * (v % 7));
    }
    emit(t, EventKind::kAcquire, 1, 13);
    emit(t, EventKind::kSignal, 5, 14);
    emit(t, EventKind::kRelease, 1, 15);
  }
  for (uint32_t t = 1; t <= 8; ++t) emit(0, EventKind::kJoin, t, 3);
  for (uint32_t v = 0; v < vars; ++v) emit(0, EventKind::kRead, 1000 + v, 4);
  return out;
}

// Args: events, drop_forced (0: check forced candidates with SeqCheck, as before the filter).
void BM_AtomicityHandOff(benchmark::State& state) {
  const std::vector<Event> trace = HandOffTrace(state.range(0), 200);
  AtomicityOptions options;
  options.drop_forced = state.range(1) != 0;
  RunAtomicity(state, trace, options);
}

BENCHMARK(BM_Deadlock)
    ->Arg(10'000)
    ->Arg(100'000)
    ->Arg(1'000'000)
    ->Arg(10'000'000)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK(BM_Atomicity)
    ->Arg(10'000)
    ->Arg(100'000)
    ->Arg(1'000'000)
    ->Arg(10'000'000)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK(BM_AtomicityHandOff)
    ->Args({100'000, 0})
    ->Args({100'000, 1})
    ->Args({1'000'000, 1})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace
}  // namespace seer::predictor::seqcheck

BENCHMARK_MAIN();
