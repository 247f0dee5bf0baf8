// libFuzzer target over a whole trace file: the bytes are written to a memory
// file and opened as `seer info` and `seer analyze` open a trace (TraceReader:
// the LMDB structure check, every table), then every chunk is decoded and fed to
// the default analyses, as RunAnalyses does. Whatever the bytes, this must end
// in Ok or an error Status, never a crash, a hang or an out-of-bounds read
// (built with AddressSanitizer and UndefinedBehaviorSanitizer).
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "predictor/analyze.h"
#include "seer/trace.h"

namespace {

// One memory file for the whole run, rewritten for each input.
const std::string& TracePath() {
  static const std::string path = [] {
    int fd = memfd_create("seer_trace_fuzz", 0);
    if (fd < 0) {
      std::perror("memfd_create");
      std::abort();
    }
    return "/proc/self/fd/" + std::to_string(fd);
  }();
  return path;
}

int TraceFd() {
  static const int fd = std::atoi(TracePath().c_str() + std::string("/proc/self/fd/").size());
  return fd;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const int fd = TraceFd();
  if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != static_cast<ssize_t>(size)) std::abort();

  std::unique_ptr<seer::TraceReader> reader;
  seer::Status s = seer::TraceReader::Open(TracePath(), &reader);
  if (!s.ok()) return 0;
  // Names, as the reports look them up.
  for (const seer::ThreadInfo& t : reader->info().threads) (void)reader->Name(seer::Namespace::kThread, t.tid);
  std::vector<seer::Event> batch;
  while (reader->Next(&batch).ok() && !batch.empty()) {
    for (const seer::Event& e : batch) (void)reader->Name(seer::Namespace::kLock, e.object);
  }
  reader.reset();

  // The analyses' path: open again, decode once, feed every default engine.
  static std::vector<const seer::predictor::EngineSpec*> engines = [] {
    std::vector<const seer::predictor::EngineSpec*> out;
    if (!seer::predictor::SelectEngines("", &out).ok()) std::abort();
    return out;
  }();
  seer::predictor::AnalysisRun run;
  (void)seer::predictor::RunAnalyses(TracePath(), engines, seer::predictor::AnalysisOptions{}, &run);
  return 0;
}
