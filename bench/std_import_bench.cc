// STD import speed, in lines per second, on a generated STD file (2M lines by
// default; SEER_BENCH_STD_LINES changes it). Three figures: the whole import into a
// trace file as `seer import` runs it (encoding on a second thread), the same on
// one thread, and the parser alone (events counted and dropped).
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "gen/generator.h"
#include "interop/std_import.h"
#include "interop/std_writer.h"
#include "store/async_writer.h"

namespace seer {
namespace {

uint64_t Lines() {
  const char* env = std::getenv("SEER_BENCH_STD_LINES");
  return env ? std::strtoull(env, nullptr, 10) : 2000000;
}

std::string Dir() { return "/tmp/seer-std-import-bench-" + std::to_string(getpid()); }

// The input, generated once: 8 threads, 16 locks, 1000 variables, 4000 locations.
const std::string& StdFile() {
  static const std::string path = [] {
    std::string dir = Dir();
    std::string cmd = "mkdir -p " + dir;
    if (std::system(cmd.c_str()) != 0) std::abort();
    std::string p = dir + "/in.std";
    gen::GenOptions o;
    o.events = Lines();
    o.threads = 8;
    o.locks = 16;
    o.variables = 1000;
    o.locations = 4000;
    std::FILE* f = std::fopen(p.c_str(), "w");
    interop::StdTextWriter w(f);
    if (!gen::Generate(o, &w).ok() || !w.Close().ok()) std::abort();
    std::fclose(f);
    return p;
  }();
  return path;
}

// A writer that only counts: what is left is the parser's own cost.
class DiscardWriter final : public TraceWriter {
 public:
  void SetMeta(const std::string&, const std::string&) override {}
  void AddThread(const ThreadInfo&) override {}
  void AddModule(const ModuleInfo&) override {}
  void SetName(Namespace, uint64_t, const std::string&) override {}
  void AddLost(const std::string&, EventKind, uint64_t) override {}
  void AddClockSample(uint64_t) override {}
  Status Append(const Event&) override {
    ++n_;
    return Status::Ok();
  }
  Status Flush() override { return Status::Ok(); }
  Status Close() override { return Status::Ok(); }
  uint64_t events_written() const override { return n_; }

 private:
  uint64_t n_ = 0;
};

void BM_ImportToTraceFile(benchmark::State& state) {
  const bool async = state.range(0) != 0;
  const std::string& in = StdFile();
  const std::string out = Dir() + "/out.seer";
  uint64_t lines = 0;
  for (auto _ : state) {
    std::unique_ptr<TraceWriter> w;
    TraceWriterOptions options;
    options.sync_on_close = false;  // the figure is about parsing and encoding, not the disk
    if (!TraceWriter::Create(out, options, &w).ok()) state.SkipWithError("cannot create trace");
    interop::ImportStats stats;
    Status s;
    if (async) {
      store::AsyncTraceWriter a(w.get());
      s = interop::ImportStd(in, &a, &stats);
      if (s.ok()) s = a.Close();
    } else {
      s = interop::ImportStd(in, w.get(), &stats);
      if (s.ok()) s = w->Close();
    }
    if (!s.ok()) state.SkipWithError(s.ToString().c_str());
    lines += stats.lines;
  }
  state.SetItemsProcessed(static_cast<int64_t>(lines));
  state.counters["lines"] = static_cast<double>(Lines());
}
// Arg 1: as `seer import` runs it, with AsyncTraceWriter; arg 0: one thread.
BENCHMARK(BM_ImportToTraceFile)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);

void BM_ParseOnly(benchmark::State& state) {
  const std::string& in = StdFile();
  uint64_t lines = 0;
  for (auto _ : state) {
    DiscardWriter w;
    interop::ImportStats stats;
    Status s = interop::ImportStd(in, &w, &stats);
    if (!s.ok()) state.SkipWithError(s.ToString().c_str());
    lines += stats.lines;
  }
  state.SetItemsProcessed(static_cast<int64_t>(lines));
}
BENCHMARK(BM_ParseOnly)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);

}  // namespace
}  // namespace seer

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::string cmd = "rm -rf " + seer::Dir();
  return std::system(cmd.c_str()) == 0 ? 0 : 1;
}
