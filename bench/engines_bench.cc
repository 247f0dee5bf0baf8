// Throughput of the race engines (events/s) on a generated trace shaped like the
// issue's target: 4 threads, 3 locks, 1,000 eight-byte variables. Single thread.
//   Process/<engine>/<events>  Process() alone on in-memory batches of 4096 events
//   Decoded/<engine>/<events>  the same trace written with TraceWriter and read
//                              back with TraceReader inside the timed loop
// "all" feeds hb, shb, wcp and lockset in one pass (the default set's race
// engines); cp runs alone. Counters: peak RSS of the process (MiB); for wcp,
// its largest queue total as a fraction of events; for cp, the edges it found
// late (after an access they order) per event.
// Traces longer than the generated 1M-event block replay that block (it ends with
// every lock free, so a replay is a valid continuation of the run).
#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "predictor/engine.h"
#include "predictor/engines/cp/cp_engine.h"
#include "predictor/engines/wcp/wcp_engine.h"
#include "seer/trace.h"
#include "tests/support/workload_trace.h"

namespace seer::predictor {
namespace {

constexpr uint64_t kBlock = 1'000'000;
constexpr size_t kBatch = 4096;

const std::vector<Event>& Block() {
  static const std::vector<Event> block = [] {
    test::WorkloadOptions o;
    o.threads = 4;
    o.locks = 3;
    o.variables = 1000;
    o.events = kBlock;
    o.fork_join = false;
    o.address_base = 0x7f0000001000;
    o.size = 8;
    std::vector<Event> events = test::WorkloadTrace(o, 42);
    events.resize(kBlock);  // whole replays; the tail releases are in the next replay's prefix anyway
    return events;
  }();
  return block;
}

TraceInfo Info() {
  TraceInfo info;
  for (uint32_t t = 0; t < 4; ++t) info.threads.push_back(ThreadInfo{t, -1, -1, "T" + std::to_string(t)});
  return info;
}

double PeakRssMiB() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

std::vector<std::unique_ptr<Engine>> MakeEngines(const std::string& name) {
  std::vector<std::unique_ptr<Engine>> engines;
  AnalysisOptions options;
  for (const char* n : {"hb", "shb", "wcp", "lockset"})
    if (name == "all" || name == n) engines.push_back(FindEngine(n)->create(options));
  if (name == "cp") engines.push_back(FindEngine("cp")->create(options));
  for (auto& e : engines)
    if (!e->Begin(Info()).ok()) std::abort();
  return engines;
}

void Report(benchmark::State& state, std::vector<std::unique_ptr<Engine>>& engines, uint64_t events) {
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * events));
  state.counters["peak_rss_MiB"] = PeakRssMiB();
  for (auto& e : engines)
    if (auto* wcp = dynamic_cast<WcpEngine*>(e.get()))
      state.counters["wcp_max_queue_frac"] =
          static_cast<double>(wcp->max_queue_entries()) / static_cast<double>(events);
  for (auto& e : engines)
    if (auto* cp = dynamic_cast<CpEngine*>(e.get()))
      state.counters["cp_late_edges_frac"] = static_cast<double>(cp->late_edges()) / static_cast<double>(events);
  Findings findings;
  for (auto& e : engines)
    if (!e->Finish(&findings).ok()) std::abort();
  if (!findings.races.empty()) state.counters["racy_events"] = static_cast<double>(findings.races[0].racy_events);
}

void BM_Process(benchmark::State& state, const std::string& name) {
  const uint64_t events = static_cast<uint64_t>(state.range(0));
  std::vector<Event> block = Block();
  std::vector<std::unique_ptr<Engine>> engines;
  for (auto _ : state) {
    state.PauseTiming();
    engines = MakeEngines(name);
    state.ResumeTiming();
    for (uint64_t done = 0; done < events;) {
      const uint64_t offset = done;
      for (size_t i = 0; i < block.size() && done < events; i += kBatch) {
        const size_t n = static_cast<size_t>(std::min<uint64_t>({kBatch, block.size() - i, events - done}));
        for (size_t k = 0; k < n; ++k) block[i + k].index = offset + i + k;
        for (auto& e : engines) e->Process(block.data() + i, n);
        done += n;
      }
    }
  }
  Report(state, engines, events);
}

const std::string& TracePath(uint64_t events) {
  static std::string path;
  static uint64_t written = 0;
  if (written == events) return path;
  path = "/tmp/seer_engines_bench_" + std::to_string(getpid()) + ".seer";
  std::unique_ptr<TraceWriter> w;
  TraceWriterOptions o;
  o.sync_on_close = false;
  if (!TraceWriter::Create(path, o, &w).ok()) std::abort();
  for (uint32_t t = 0; t < 4; ++t) w->AddThread(ThreadInfo{t, -1, -1, "T" + std::to_string(t)});
  const std::vector<Event>& block = Block();
  for (uint64_t i = 0; i < events; ++i)
    if (!w->Append(block[i % block.size()]).ok()) std::abort();
  if (!w->Close().ok()) std::abort();
  written = events;
  return path;
}

void BM_Decoded(benchmark::State& state, const std::string& name) {
  const uint64_t events = static_cast<uint64_t>(state.range(0));
  const std::string& path = TracePath(events);
  std::vector<std::unique_ptr<Engine>> engines;
  std::vector<Event> batch;
  for (auto _ : state) {
    state.PauseTiming();
    engines = MakeEngines(name);
    state.ResumeTiming();
    std::unique_ptr<TraceReader> reader;
    if (!TraceReader::Open(path, &reader).ok()) std::abort();
    while (true) {
      if (!reader->Next(&batch).ok()) std::abort();
      if (batch.empty()) break;
      for (auto& e : engines) e->Process(batch.data(), batch.size());
    }
  }
  Report(state, engines, events);
}

void Register() {
  for (const char* name : {"hb", "shb", "wcp", "cp", "lockset", "all"}) {
    auto* p = benchmark::RegisterBenchmark((std::string("Process/") + name).c_str(), BM_Process, std::string(name));
    p->Arg(1'000'000)->Arg(10'000'000)->Unit(benchmark::kMillisecond)->Iterations(2);
    auto* d = benchmark::RegisterBenchmark((std::string("Decoded/") + name).c_str(), BM_Decoded, std::string(name));
    d->Arg(1'000'000)->Unit(benchmark::kMillisecond)->Iterations(2);
  }
  // 100M events: one iteration per engine, Process() only (the block is replayed).
  for (const char* name : {"hb", "wcp", "cp", "all"})
    benchmark::RegisterBenchmark((std::string("Process/") + name).c_str(), BM_Process, std::string(name))
        ->Arg(100'000'000)
        ->Unit(benchmark::kMillisecond)
        ->Iterations(1);
}

}  // namespace
}  // namespace seer::predictor

int main(int argc, char** argv) {
  seer::predictor::Register();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::remove(("/tmp/seer_engines_bench_" + std::to_string(getpid()) + ".seer").c_str());
  return 0;
}
