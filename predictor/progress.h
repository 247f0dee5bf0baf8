// How far a long analysis is, for a user watching it: the events the engines
// have consumed, and the units of work an engine does after them (SeqCheck's
// windows). cli/progress.h draws it on stderr. With --jobs, engines call it
// from the pool's threads: an implementation locks what it shares.
#pragma once

#include <cstdint>
#include <string>

namespace seer::predictor {

class AnalysisProgress {
 public:
  virtual ~AnalysisProgress() = default;
  // Every engine has consumed `events` of the trace's `total` (0: unknown).
  virtual void Fed(uint64_t events, uint64_t total) = 0;
  // `engine` has decided `done` of about `total` units of `unit` ("windows").
  virtual void Decided(const std::string& engine, const std::string& unit, uint64_t done, uint64_t total) = 0;
};

}  // namespace seer::predictor
