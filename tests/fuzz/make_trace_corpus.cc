// Writes the seed corpus for the trace file fuzzer: whole trace files, made the
// ways seer makes them: generated (`seer gen`), imported from STD text (the CLI
// tests' files), and written with every table filled as a recording fills them,
// in chunks small enough that the chunks table has branch and overflow pages.
#include <cstdio>
#include <memory>
#include <string>

#include "gen/generator.h"
#include "interop/std_import.h"
#include "seer/trace.h"

namespace {

bool Gen(const std::string& path, uint64_t events, uint32_t threads) {
  seer::gen::GenOptions g;
  g.events = events;
  g.threads = threads;
  g.locks = 3;
  g.variables = 16;
  g.locations = 32;
  std::unique_ptr<seer::TraceWriter> w;
  if (!seer::TraceWriter::Create(path, {}, &w).ok()) return false;
  return seer::gen::Generate(g, w.get()).ok() && w->Close().ok();
}

bool Import(const std::string& std_path, const std::string& path) {
  std::unique_ptr<seer::TraceWriter> w;
  if (!seer::TraceWriter::Create(path, {}, &w).ok()) return false;
  seer::interop::ImportStats stats;
  return seer::interop::ImportStd(std_path, w.get(), &stats).ok() && w->Close().ok();
}

// Like a recording: modules, thread table with OS tids, loss counts, real-looking
// addresses, many chunks.
bool Recorded(const std::string& path) {
  seer::TraceWriterOptions options;
  options.events_per_chunk = 100;
  std::unique_ptr<seer::TraceWriter> w;
  if (!seer::TraceWriter::Create(path, options, &w).ok()) return false;
  w->SetMeta(seer::meta::kSource, "record");
  w->SetMeta(seer::meta::kPcKind, "address");
  w->SetMeta(seer::meta::kCommandLine, "./a.out --flag");
  w->AddModule({"/usr/bin/a.out", "0123456789abcdef", 0x400000, 0x20000, 0});
  w->AddModule({"/lib/x86_64-linux-gnu/libc.so.6", "fedcba9876543210", 0x7f0000000000, 0x1c0000, 0x1000});
  w->AddThread({0, 4242, -1, "main"});
  w->AddThread({1, 4243, 0, "worker"});
  w->AddLost("runtime-ring", seer::EventKind::kRead, 3);
  for (uint64_t i = 0; i < 3000; ++i) {
    seer::Event e;
    e.tid = static_cast<uint32_t>(i % 2);
    e.kind = i % 7 == 0   ? seer::EventKind::kAcquire
             : i % 7 == 1 ? seer::EventKind::kRelease
             : i % 3      ? seer::EventKind::kRead
                          : seer::EventKind::kWrite;
    e.object = e.kind == seer::EventKind::kAcquire || e.kind == seer::EventKind::kRelease
                   ? 0x601040
                   : 0x7ffd00001000 + e.tid * 4096 + (i * 40503) % 512 * 8;
    e.aux = 8;
    e.pc = 0x401000 + (i * 2654435761u) % 2048;
    if (!w->Append(e).ok()) return false;
  }
  return w->Close().ok();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: make_trace_corpus DIR STD_DATA_DIR\n");
    return 2;
  }
  const std::string dir = argv[1], data = argv[2];
  bool ok = Gen(dir + "/gen_small.seer", 200, 2) && Gen(dir + "/gen_threads.seer", 3000, 5) &&
            Import(data + "/names.std", dir + "/names.seer") &&
            Import(data + "/lock_handoff.std", dir + "/lock_handoff.seer") && Recorded(dir + "/recorded.seer");
  if (!ok) std::fprintf(stderr, "make_trace_corpus: cannot write the corpus\n");
  return ok ? 0 : 1;
}
