// The source-level details the report writers show for recorded traces: stacks
// of symbolised frames and the raced variable (global, heap block, a thread's
// stack or TLS variable).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "predictor/findings.h"
#include "predictor/report/context.h"
#include "predictor/report/report.h"
#include "predictor/symbolize/symbolizer.h"
#include "seer/trace.h"

namespace seer::predictor {

struct ReportDetails {
  std::unique_ptr<Symbolizer> symbolizer;
  ReportContext context;
};

// Symbolises the trace's module map and collects the context of the events
// `findings` name (one more pass over the trace at `path`).
Status CollectReportDetails(const std::string& path, const TraceInfo& info, const Findings& findings,
                            const SymbolizerOptions& options, ReportDetails* out);

// The symbolised frames of the event's stack, innermost first (its own pc when
// no stack was collected).
std::vector<Frame> EventFrames(ReportDetails& details, const EventRef& e);
std::vector<Frame> StackFrames(ReportDetails& details, const std::vector<uint64_t>& stack);

// Library code the user did not write: system headers (std::mutex::lock inlined
// from /usr/include) and glibc's own sources as its debug info names them
// (./nptl/..., ../sysdeps/...).
bool IsLibrarySource(const std::string& file);

// The index of the innermost frame in the program's own code (the first with a
// source file that is not IsLibrarySource); 0 when there is none.
size_t OwnFrame(const std::vector<Frame>& frames);

// Where an event is: "function file:line" from its innermost frame in the
// program's own code (not a system header or glibc) when `details` symbolise it,
// else names.Site ("location 12", "pc 0x55d0c4a4b1a9").
std::string EventSite(const ReportNames& names, ReportDetails* details, const EventRef& e);

// "name" or "name+0x30" for an address inside a global (locks are often inside
// one: a struct, an array); "" otherwise.
std::string GlobalName(ReportDetails& details, uint64_t address);

struct VariableInfo {
  std::string kind = "unknown";  // "global", "heap", "stack", "tls", "fd" or "unknown"
  std::string name;              // global's or TLS variable's name, the descriptor's number, "" otherwise
  uint64_t address = 0;          // start of the variable or the block; the raced address if unknown
  uint64_t size = 0;
  DataSymbol global;                   // kind == "global", or "tls" with a name (address: this thread's copy)
  const MemoryBlock* block = nullptr;  // kind "heap", "stack" or "tls": the owner is block->tid
};
// The variable `access` touches, as it was at that access: a race pair's is its
// first access's, an atomicity violation's its first local access's (the report
// context collects the blocks of both).
VariableInfo DescribeVariable(ReportDetails& details, const EventRef& access);

// The size a report shows for one access of a pair described by `v`: a free's
// event carries the allocator's usable size, but the engines take the block's
// requested size as freed (EventLowering), and the block's own line shows that.
uint64_t ShownSize(const EventRef& e, const VariableInfo& v);

}  // namespace seer::predictor
