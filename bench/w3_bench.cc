// Lockset-W3 throughput on a generated trace like the reference workload
// (4 threads, 3 locks, 1,000 variables), built in memory so only the engine is timed.
#include <benchmark/benchmark.h>

#include <vector>

#include "predictor/engine.h"
#include "seer/event.h"
#include "tests/support/workload_trace.h"

namespace seer::predictor {
namespace {

void RunEngine(benchmark::State& state, const char* name) {
  test::WorkloadOptions options;  // 4 threads, 3 locks, 1,000 variables
  options.events = static_cast<uint64_t>(state.range(0));
  const auto trace = test::WorkloadTrace(options, 42);
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
}  // namespace seer::predictor

BENCHMARK_MAIN();
