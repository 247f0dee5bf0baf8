// Decode throughput of the trace store: events/s of TraceReader::Next over a
// trace on disk, and bytes per event. The trace is written once per process
// with a fixed seed (4 threads, 3 locks, 1,000 variables, 1,000 locations).
#include <benchmark/benchmark.h>
#include <sys/stat.h>
#include <unistd.h>

#include <random>
#include <string>

#include "seer/trace.h"

namespace {

std::string WriteTrace(uint64_t n) {
  std::string path = "/tmp/seer-decode-bench-" + std::to_string(getpid()) + "-" + std::to_string(n) + ".seer";
  std::unique_ptr<seer::TraceWriter> w;
  if (!seer::TraceWriter::Create(path, {}, &w).ok()) return "";
  std::mt19937_64 rng(42);
  struct Site { seer::EventKind kind; uint64_t var; };
  std::vector<Site> sites(1000);
  for (auto& s : sites) s = {rng() % 3 ? seer::EventKind::kRead : seer::EventKind::kWrite, rng() % 1000};
  uint32_t tid = 0;
  for (uint64_t i = 0; i < n; ++i) {
    if (rng() % 8 == 0) tid = rng() % 4;
    seer::Event e;
    e.tid = tid;
    uint64_t loc = rng() % sites.size();
    if (i % 20 == 0) {
      e.kind = (i / 20) % 2 ? seer::EventKind::kRelease : seer::EventKind::kAcquire;
      e.object = 1;
    } else {
      e.kind = sites[loc].kind;
      e.object = sites[loc].var;
      e.aux = 1;
    }
    e.pc = loc;
    if (!w->Append(e).ok()) return "";
  }
  if (!w->Close().ok()) return "";
  return path;
}

void BM_Decode(benchmark::State& state) {
  const uint64_t n = state.range(0);
  static const std::string path = WriteTrace(n);  // written once per process
  if (path.empty()) {
    state.SkipWithError("cannot write trace");
    return;
  }
  struct stat st;
  stat(path.c_str(), &st);
  uint64_t events = 0;
  for (auto _ : state) {
    std::unique_ptr<seer::TraceReader> r;
    if (!seer::TraceReader::Open(path, &r).ok()) {
      state.SkipWithError("cannot open");
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
BENCHMARK(BM_Decode)->Arg(10'000'000)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::string pattern = "/tmp/seer-decode-bench-" + std::to_string(getpid()) + "-";
  for (uint64_t n : {10'000'000ull}) unlink((pattern + std::to_string(n) + ".seer").c_str());
  return 0;
}
