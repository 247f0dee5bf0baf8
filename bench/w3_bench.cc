// Lockset-W3 throughput on a generated trace like the reference workload
// (4 threads, 3 locks, 1,000 variables), built in memory so only the engine is timed.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "predictor/engine.h"
#include "seer/event.h"

namespace seer {
namespace {

// Threads run blocks one at a time: a critical section on a random lock with 1-4
// accesses, or 1-4 unprotected accesses. 30% writes; each thread has 50 program
// locations per variable class, so pcs repeat as in a real program.
std::vector<Event> GenerateTrace(uint64_t events, uint32_t threads, uint32_t locks, uint32_t variables) {
  std::mt19937_64 rng(42);
  std::vector<Event> out;
  out.reserve(events + 16);
  auto emit = [&](uint32_t t, EventKind k, uint64_t object, uint64_t aux, uint64_t pc) {
    Event e;
    e.index = out.size();
    e.tid = t;
    e.kind = k;
    e.object = object;
    e.aux = aux;
    e.pc = pc;
    out.push_back(e);
  };
  for (uint32_t t = 1; t < threads; ++t) emit(0, EventKind::kFork, t, 0, 1);
  while (out.size() < events) {
    const uint32_t t = rng() % threads;
    const bool locked = rng() % 3 == 0;
    const uint64_t lock = 1 + rng() % locks;
    if (locked) emit(t, EventKind::kAcquire, lock, 0, 100 + lock);
    const int n = 1 + rng() % 4;
    for (int i = 0; i < n; ++i) {
      const uint64_t var = rng() % variables;
      const bool write = rng() % 10 < 3;
      emit(t, write ? EventKind::kWrite : EventKind::kRead, 0x10000 + 8 * var, 8,
           1000 * (t + 1) + 2 * (var % 50) + write);
    }
    if (locked) emit(t, EventKind::kRelease, lock, 0, 200 + lock);
  }
  for (uint32_t t = 1; t < threads; ++t) emit(0, EventKind::kJoin, t, 0, 2);
  return out;
}

void RunEngine(benchmark::State& state, const char* name) {
  const auto trace = GenerateTrace(state.range(0), 4, 3, 1000);
  const EngineSpec* spec = FindEngine(name);
  if (spec == nullptr) {
    state.SkipWithError("engine not registered");
    return;
  }
  uint64_t pairs = 0;
  for (auto _ : state) {
    auto engine = spec->create(AnalysisOptions{});
    if (!engine->Begin(TraceInfo{}).ok()) {
      state.SkipWithError("Begin failed");
      return;
    }
    constexpr size_t kBatch = 4096;  // the driver feeds decoded chunks of this order
    for (size_t i = 0; i < trace.size(); i += kBatch)
      engine->Process(trace.data() + i, std::min(kBatch, trace.size() - i));
    Findings findings;
    if (!engine->Finish(&findings).ok()) {
      state.SkipWithError("Finish failed");
      return;
    }
    pairs = findings.races.at(0).pairs.size();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * trace.size()));
  state.counters["race_pairs"] = static_cast<double>(pairs);
}

void BM_W3Linear(benchmark::State& state) { RunEngine(state, "w3-linear"); }
void BM_W3Exact(benchmark::State& state) { RunEngine(state, "w3"); }

BENCHMARK(BM_W3Linear)->Arg(1'000'000)->Arg(5'000'000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_W3Exact)->Arg(100'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace seer

BENCHMARK_MAIN();
