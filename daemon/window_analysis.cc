#include "daemon/window_analysis.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "predictor/analyze.h"
#include "predictor/report/details.h"
#include "predictor/report/report.h"
#include "predictor/report/watch_atomics.h"
#include "predictor/symbolize/symbolizer.h"

namespace seer::daemon {

namespace {

// The signature: what makes two findings of different windows the same bug.
// Sites are sorted, so that the same cycle met from another thread is one.
std::string Signature(const std::string& kind, const std::string& engine, std::vector<std::string> sites) {
  std::sort(sites.begin(), sites.end());
  std::string s = kind + "|" + engine;
  for (const std::string& site : sites) s += "|" + site;
  return s;
}

std::string LockName(const predictor::ReportNames& names, predictor::ReportDetails* details, uint64_t lock) {
  std::string name = names.ObjectName(EventKind::kAcquire, lock);
  if (name.empty() && details != nullptr) name = GlobalName(*details, lock);
  return name.empty() ? names.Object(EventKind::kAcquire, lock) : name;
}

void CollectFindings(const predictor::AnalysisRun& run, predictor::ReportDetails* details, const WantsHtml& wants_html,
                     std::vector<FindingRecord>* out) {
  const TraceReader& trace = *run.reader;
  const predictor::ReportNames names(trace);
  auto site = [&](const predictor::EventRef& e) { return EventSite(names, details, e); };
  auto add = [&](std::string kind, const std::string& engine, std::vector<std::string> sites, std::string summary,
                 const predictor::Findings& alone) {
    FindingRecord r;
    r.signature = Signature(kind, engine, std::move(sites));
    r.kind = std::move(kind);
    r.engine = engine;
    r.summary = std::move(summary);
    predictor::ReportOptions text_options;
    text_options.list_heuristic = true;  // the finding's own report: it is the one finding shown
    r.report = predictor::TextReport(trace, alone, {engine}, details, text_options);
    if (wants_html && wants_html(r.signature)) {
      // Without a page the finding keeps its text report; the next window that has it tries again.
      Status st = predictor::HtmlReport(trace, alone, {engine}, details, predictor::ReportOptions(), &r.html);
      if (!st.ok()) r.html.clear();
    }
    out->push_back(std::move(r));
  };
  // A cycle of lock steps: its sites ("held > wanted" per step) and its summary.
  auto cycle = [&](const char* title, const char* verb, const std::vector<predictor::DeadlockThread>& steps,
                   std::vector<std::string>* sites) {
    std::string summary = title;
    for (const predictor::DeadlockThread& t : steps) {
      sites->push_back(site(t.held_acquire) + " > " + site(t.blocked_acquire));
      summary +=
          fmt::format(" {} held at {}, {} {} at {};", LockName(names, details, t.held_lock), site(t.held_acquire),
                      LockName(names, details, t.wanted_lock), verb, site(t.blocked_acquire));
    }
    summary.pop_back();
    return summary;
  };
  for (const predictor::Deadlock& d : run.findings.deadlocks) {
    std::vector<std::string> sites;
    std::string summary = cycle("deadlock:", "wanted", d.cycle, &sites);
    predictor::Findings alone;
    alone.deadlocks.push_back(d);
    add("deadlock", d.engine, std::move(sites), std::move(summary), alone);
  }
  for (const predictor::LockOrderInversion& inv : run.findings.lock_order) {
    std::vector<std::string> sites;
    std::string summary = cycle("lock-order inversion:", "taken", inv.cycle, &sites);
    predictor::Findings alone;
    alone.lock_order.push_back(inv);
    add("lock-order", inv.engine, std::move(sites), std::move(summary), alone);
  }
  for (const predictor::RaceResult& r : run.findings.races) {
    for (const predictor::RacePair& p : r.pairs) {
      const std::string a = site(p.first), b = site(p.second);
      predictor::Findings alone;
      predictor::RaceResult one = r;
      one.pairs = {p};
      one.racy_events = 2;
      one.racy_locations = a == b ? 1 : 2;
      alone.races.push_back(std::move(one));
      add("race", r.engine, {a, b},
          fmt::format("race on {}: {} and {}", names.Object(p.first.kind, p.first.object), a, b), alone);
    }
  }
  for (const predictor::AtomicityViolation& v : run.findings.atomicity) {
    const std::string l1 = site(v.local_first), rm = site(v.remote), l2 = site(v.local_second);
    predictor::Findings alone;
    alone.atomicity.push_back(v);
    // The order of the three accesses is part of the bug: one site, not sorted.
    add("atomicity", v.engine, {v.pattern + " " + l1 + " / " + rm + " / " + l2},
        fmt::format("atomicity violation ({}): {} / {} / {}", v.pattern, l1, rm, l2), alone);
  }
}

}  // namespace

Status AnalyzeWindow(const std::string& path, const std::vector<const predictor::EngineSpec*>& engines,
                     WindowAnalysis* out, const WantsHtml& wants_html) {
  predictor::AnalysisRun run;
  ContentionCounter counter;  // counted in the engines' pass
  Status s = predictor::RunAnalyses(path, engines, predictor::AnalysisOptions(), &run, {},
                                    [&](const std::vector<Event>& batch) {
                                      for (const Event& e : batch) counter.Add(e);
                                    });
  if (!s.ok()) return s;
  const TraceInfo& info = run.reader->info();
  out->events = info.counters.events;
  out->by_kind = info.counters.by_kind;
  out->lost = info.counters.TotalLost();

  predictor::ReportDetails details;
  predictor::ReportDetails* with = nullptr;
  if (!info.modules.empty()) {
    s = predictor::CollectReportDetails(path, info, run.findings, predictor::SymbolizerOptions(), &details);
    if (!s.ok()) return s.WithContext("collecting stacks for the findings");
    with = &details;
    // As seer analyze does: relaxed atomics are no caught races.
    if (details.symbolizer != nullptr) predictor::SetAsideAtomicWatchHits(*details.symbolizer, &run.findings);
  }
  CollectFindings(run, with, wants_html, &out->findings);

  const predictor::ReportNames names(*run.reader);
  std::map<std::pair<std::string, std::string>, ContentionStats> labelled;
  for (const auto& [key, stats] : counter.Folded(kContentionPairsPerWindow)) {
    predictor::EventRef acquire;
    acquire.kind = EventKind::kAcquire;
    acquire.pc = key.second;
    acquire.object = key.first;
    const std::string lock = key.first == kOtherLocks ? kOtherLocksName : LockName(names, with, key.first);
    labelled[{lock, EventSite(names, with, acquire)}].Merge(stats);
  }
  for (const auto& [label, stats] : labelled) out->contention.push_back({label.first, label.second, stats});
  return Status::Ok();
}

}  // namespace seer::daemon
