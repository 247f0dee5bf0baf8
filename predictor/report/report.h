// Reports of an analysis run: text for people, JSON for tools, SARIF for code
// scanning, one HTML page to open and share. The formats are documented in
// docs/cli.md (the JSON schema is kept stable). All name threads, variables and
// locks with the names the trace keeps, and fall back to ids and addresses.
#pragma once

#include <string>
#include <vector>

#include "predictor/findings.h"
#include "seer/status.h"
#include "seer/trace.h"

namespace seer::predictor {

struct ReportDetails;  // predictor/report/details.h

struct ReportOptions {
  // SARIF: source paths under it are written relative to it (the SRCROOT base
  // id); HTML: relative source paths are read from it. Default: the current folder.
  std::string source_root;
  // Text: list the race pairs that only heuristic engines (lockset) report. By
  // default they are counted in one line (--lockset-warnings lists them).
  bool list_heuristic = false;
};

// With `details` (recorded traces), events come with symbolised stacks, held
// locks and the raced variable; without, with their pcs or location ids.
std::string TextReport(const TraceReader& trace, const Findings& findings, const std::vector<std::string>& analyses,
                       ReportDetails* details = nullptr, const ReportOptions& options = ReportOptions());
std::string JsonReport(const TraceReader& trace, const Findings& findings, const std::vector<std::string>& analyses,
                       ReportDetails* details = nullptr);

// SARIF 2.1.0: one run, a rule per finding kind, results with locations, stacks,
// the witness schedule as thread flows and fingerprints stable across runs.
// Reads the trace (info().path) again for the schedules' events.
Status SarifReport(const TraceReader& trace, const Findings& findings, const std::vector<std::string>& analyses,
                   ReportDetails* details, const ReportOptions& options, std::string* out);
// One self-contained HTML page (inline CSS and script, no network): summary,
// findings by kind with source snippets, stacks, locks, witness lanes, filters.
Status HtmlReport(const TraceReader& trace, const Findings& findings, const std::vector<std::string>& analyses,
                  ReportDetails* details, const ReportOptions& options, std::string* out);

// Findings a user should look at: race pairs, deadlocks, atomicity violations.
uint64_t CountFindings(const Findings& findings);

// Names for reports, shared by the writers.
class ReportNames {
 public:
  explicit ReportNames(const TraceReader& trace);
  // The thread's name, "name (T<tid>)" when other threads have the same name,
  // or "T<tid>" when it has none.
  std::string Thread(uint32_t tid) const;
  // The name of a variable (memory kinds) or lock (sync kinds), or "" if none.
  std::string ObjectName(EventKind kind, uint64_t object) const;
  // ObjectName, or V<id> / L<id> in traces that number their objects (as STD
  // export names them), or the hex address in recorded traces.
  std::string Object(EventKind kind, uint64_t object) const;
  // Where an event is, without symbols: "location 12" in traces that number
  // their locations (imported, generated), "pc 0x55d0c4a4b1a9" in recorded ones.
  std::string Site(uint64_t pc) const;

 private:
  const TraceReader& trace_;
  std::vector<std::string> threads_;
};

// "0" or "12 (bpf-ringbuf: 10 read, 2 acquire)".
std::string LostSummary(const TraceCounters& counters);

}  // namespace seer::predictor
