// Decode throughput of the trace store: events/s of a full TraceReader pass that
// counts events per kind (what `seer info` does), and bytes per event on disk.
// Traces come from the `seer gen` generator with a fixed seed: 4 threads, 3 locks,
// 1,000 variables, 1,000 locations (the shape the targets name).
#include <benchmark/benchmark.h>
#include <sys/stat.h>
#include <unistd.h>

#include <map>
#include <string>

#include "gen/generator.h"
#include "seer/trace.h"

namespace {

std::string TracePath(uint64_t n) {
  return "/tmp/seer-decode-bench-" + std::to_string(getpid()) + "-" + std::to_string(n) + ".seer";
}

// Written once per size and process.
const std::string& Trace(uint64_t n) {
  static std::map<uint64_t, std::string> paths;
  auto it = paths.find(n);
  if (it != paths.end()) return it->second;
  std::string path = TracePath(n);
  seer::gen::GenOptions options;
  options.events = n;
  options.threads = 4;
  options.locks = 3;
  options.variables = 1000;
  options.locations = 1000;
  options.seed = 1;
  std::unique_ptr<seer::TraceWriter> w;
  if (!seer::TraceWriter::Create(path, {}, &w).ok() || !seer::gen::Generate(options, w.get()).ok() || !w->Close().ok())
    path.clear();
  return paths[n] = path;
}

void BM_Decode(benchmark::State& state) {
  const uint64_t n = state.range(0);
  const std::string& path = Trace(n);
  if (path.empty()) {
    state.SkipWithError("cannot write the trace");
    return;
  }
  struct stat st;
  stat(path.c_str(), &st);
  uint64_t events = 0;
  for (auto _ : state) {
    std::unique_ptr<seer::TraceReader> r;
    if (!seer::TraceReader::Open(path, &r).ok()) {
      state.SkipWithError("cannot open the trace");
      break;
    }
    std::vector<seer::Event> batch;
    uint64_t kinds[seer::kNumEventKinds] = {};
    while (r->Next(&batch).ok() && !batch.empty()) {
      for (const auto& e : batch) ++kinds[static_cast<int>(e.kind)];
      events += batch.size();
    }
    benchmark::DoNotOptimize(kinds);
  }
  state.counters["events/s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
  state.counters["bytes/event"] = static_cast<double>(st.st_size) / static_cast<double>(n);
}
BENCHMARK(BM_Decode)->Arg(1'000'000)->Arg(10'000'000)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  for (uint64_t n : {1'000'000ull, 10'000'000ull}) unlink(TracePath(n).c_str());
  return 0;
}
