// The source-level details both report writers show for recorded traces: stacks
// of symbolised frames, the raced variable (global, heap block, a thread's stack
// or TLS variable), and the race
// pairs of all engines grouped by their pair of program counters.
#pragma once

#include <map>
#include <memory>
#include <utility>
#include <string>
#include <vector>

#include "predictor/findings.h"
#include "predictor/report/context.h"
#include "predictor/symbolize/symbolizer.h"
#include "seer/trace.h"

namespace seer {

struct ReportDetails {
  std::unique_ptr<Symbolizer> symbolizer;
  ReportContext context;
};

// Symbolises the trace's module map and collects the context of the events
// `findings` name (one more pass over the trace at `path`).
Status CollectReportDetails(const std::string& path, const TraceInfo& info, const Findings& findings,
                            const SymbolizerOptions& options, ReportDetails* out);

// One race pair as every engine that found it reports it (same unordered pcs).
struct RaceGroup {
  const RacePair* pair = nullptr;            // as the first of those engines reports it
  std::vector<const RaceResult*> engines;    // in the order of findings.races
};
std::vector<RaceGroup> GroupRaces(const Findings& findings);

// The names of the engines that report each race pair's unordered (pc, pc).
class RaceEngines {
 public:
  explicit RaceEngines(const Findings& findings);
  const std::vector<std::string>& Of(const RacePair& pair) const;

 private:
  std::map<std::pair<uint64_t, uint64_t>, std::vector<std::string>> engines_;
};

// The symbolised frames of the event's stack, innermost first (its own pc when
// no stack was collected).
std::vector<Frame> EventFrames(ReportDetails& details, const EventRef& e);
std::vector<Frame> StackFrames(ReportDetails& details, const std::vector<uint64_t>& stack);

// "name" or "name+0x30" for an address inside a global (locks are often inside
// one: a struct, an array); "" otherwise.
std::string GlobalName(ReportDetails& details, uint64_t address);

struct VariableInfo {
  std::string kind = "unknown";  // "global", "heap", "stack", "tls" or "unknown"
  std::string name;              // global's or TLS variable's name, "" otherwise
  uint64_t address = 0;          // start of the variable or the block; the raced address if unknown
  uint64_t size = 0;
  DataSymbol global;             // kind == "global", or "tls" with a name (address: this thread's copy)
  const MemoryBlock* block = nullptr;  // kind "heap", "stack" or "tls": the owner is block->tid
};
VariableInfo DescribeVariable(ReportDetails& details, const RacePair& pair);

}  // namespace seer
