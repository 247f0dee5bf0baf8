// The HTML report: one self-contained page (inline CSS and script, nothing
// fetched at view time) to open and share. The page carries the JSON report
// (the same document `--format json` writes) plus the source lines around each
// finding's events and the events of the witness schedules' tails, and its
// script draws the summary, the findings by kind with their stacks, locks and
// snippets, the schedules as thread lanes, and filters by kind and engine.
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "predictor/report/details.h"
#include "predictor/report/report.h"
#include "predictor/report/schedule_events.h"

namespace seer::predictor {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// Lines shown before and after a finding's line.
constexpr uint32_t kSnippetContext = 3;

// The source lines around the lines of the two innermost frames of each event
// in the program's own code: {file: {line: text}}.
json Snippets(const json& report, const fs::path& root) {
  std::map<std::string, std::set<uint32_t>> wanted;
  auto visit_event = [&](const json& e) {
    if (!e.is_object() || !e.contains("stack")) return;
    int taken = 0;
    for (const json& f : e["stack"]) {
      if (taken == 2) break;
      if (!f["file"].is_string() || !f["line"].is_number() || IsLibrarySource(f["file"].get<std::string>())) continue;
      wanted[f["file"].get<std::string>()].insert(f["line"].get<uint32_t>());
      ++taken;
    }
  };
  for (const auto& [engine, result] : report["races"].items())
    for (const json& p : result["pairs"]) {
      visit_event(p["first"]);
      visit_event(p["second"]);
    }
  for (const char* cycles : {"deadlocks", "lock_order_inversions"})
    for (const json& d : report[cycles])
      for (const json& e : d["events"]) visit_event(e);
  for (const json& a : report["atomicity"])
    for (const json& e : a["events"]) visit_event(e);

  json out = json::object();
  for (const auto& [file, lines] : wanted) {
    const fs::path path = fs::path(file).is_absolute() ? fs::path(file) : root / file;
    std::ifstream in(path);
    if (!in) continue;  // not readable here: the page shows the position only
    std::set<uint32_t> keep;
    for (uint32_t l : lines)
      for (uint32_t k = l > kSnippetContext ? l - kSnippetContext : 1; k <= l + kSnippetContext; ++k) keep.insert(k);
    json text = json::object();
    std::string line;
    for (uint32_t n = 1; std::getline(in, line) && n <= *keep.rbegin(); ++n)
      if (keep.count(n)) text[std::to_string(n)] = line;
    out[file] = text;
  }
  return out;
}

json ScheduleEventsJson(const TraceReader& trace, ReportDetails* details, const std::map<uint64_t, Event>& events) {
  const ReportNames names(trace);
  json out = json::object();
  for (const auto& [index, e] : events) {
    const EventRef ref = EventRef::Of(e);
    out[std::to_string(index)] = {{"thread", e.tid},
                                  {"thread_name", names.Thread(e.tid)},
                                  {"kind", std::string(EventKindName(e.kind))},
                                  {"object", names.Object(e.kind, e.object)},
                                  {"site", EventSite(names, details, ref)}};
  }
  return out;
}

constexpr const char* kPageHead = R"html(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>seer report</title>
<style>
body { font: 14px/1.45 system-ui, sans-serif; margin: 0; color: #1d2430; background: #f6f7f9; }
header { background: #1d2430; color: #fff; padding: 12px 24px; }
header h1 { margin: 0; font-size: 20px; }
main { padding: 16px 24px; max-width: 1200px; }
table.summary td { padding: 2px 12px 2px 0; vertical-align: top; }
#filters { background: #fff; border: 1px solid #d8dce3; border-radius: 6px; padding: 8px 12px; margin: 12px 0; }
#filters fieldset { display: inline-block; border: none; margin: 0 24px 0 0; padding: 0; }
#filters legend { font-weight: 600; padding: 0; }
#filters label { margin-right: 10px; }
section.kind > h2 { font-size: 17px; border-bottom: 1px solid #d8dce3; padding-bottom: 4px; }
.finding { background: #fff; border: 1px solid #d8dce3; border-left: 5px solid #b0b7c3; border-radius: 6px;
  padding: 10px 14px; margin: 10px 0; }
.finding.proven { border-left-color: #c62828; }
.finding.predicted { border-left-color: #ef9f00; }
.finding h3 { margin: 0 0 4px; font-size: 15px; }
.badge { display: inline-block; font-size: 12px; padding: 0 6px; border-radius: 8px; background: #e6e9ee;
  margin-right: 4px; }
.badge.proven { background: #fbe0e0; color: #8e1b1b; }
.badge.predicted { background: #fff1d0; color: #7a5000; }
.proof { font-style: italic; margin: 2px 0 6px; }
.event { margin: 8px 0 4px; }
.event .title { font-weight: 600; }
ol.stack { margin: 2px 0; padding-left: 28px; font-family: ui-monospace, monospace; font-size: 12.5px; }
ol.stack li.inlined { color: #59606b; }
pre.snippet { background: #f3f4f6; border: 1px solid #e2e5ea; margin: 4px 0 4px 28px; padding: 4px 0;
  font-size: 12.5px; overflow-x: auto; }
pre.snippet span { display: block; padding: 0 8px; }
pre.snippet span.hit { background: #ffe3a3; }
.muted { color: #6b7280; }
table.lanes { border-collapse: collapse; margin: 6px 0; font-size: 12.5px; }
.witness { overflow-x: auto; }
table.lanes th, table.lanes td { border: 1px solid #e2e5ea; padding: 2px 8px; text-align: left; vertical-align: top;
  max-width: 320px; overflow-wrap: anywhere; }
table.lanes td.step { color: #6b7280; text-align: right; }
table.lanes td.key { background: #fbe0e0; font-weight: 600; }
.hidden { display: none; }
</style>
</head>
<body>
<header><h1>seer report</h1></header>
<main>
<section id="summary"><table class="summary"><tbody id="summary-rows"></tbody></table></section>
<div id="filters"></div>
<div id="findings"></div>
</main>
<script type="application/json" id="seer-data">)html";

constexpr const char* kPageScript = R"html(</script>
<script>
"use strict";
const data = JSON.parse(document.getElementById("seer-data").textContent);
const report = data.report;

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v; else node.setAttribute(k, v);
  }
  for (const c of children) {
    if (c === null || c === undefined) continue;
    node.append(typeof c === "string" || typeof c === "number" ? String(c) : c);
  }
  return node;
}

// Library sources, as IsLibrarySource in predictor/report/details.h.
const librarySource = /^(\/usr\/|\.\/|\.\.\/)/;

// The event's innermost frame in the program's own code, as the text report
// names it: a lock is taken in Transfer, not in the inlined std::mutex::lock.
function where(e) {
  const own = e.stack.find(f => f.file && !librarySource.test(f.file)) || e;
  if (own.function && own.file) return own.function + " " + own.file + (own.line ? ":" + own.line : "");
  if (own.function) return own.function;
  return "location " + e.location;
}

// A lock as the reports name it, with its global's name when it has one.
function lockName(name) {
  return data.lock_names[name] ? name + " '" + data.lock_names[name] + "'" : name;
}

// --- summary -------------------------------------------------------------
const rows = document.getElementById("summary-rows");
function summaryRow(label, value) { rows.append(el("tr", {}, el("td", {}, label), el("td", {}, value))); }
summaryRow("trace", report.trace.path + (report.trace.complete ? "" : " (not closed cleanly)"));
summaryRow("threads", report.trace.threads);
summaryRow("events", report.trace.events);
summaryRow("lost events", report.trace.lost_events);
const guarantees = report.analyses.map(a => report.races[a] ? a + " (" + report.races[a].guarantee + ")" : a);
summaryRow("analyses", guarantees.length ? guarantees.join(", ") : "none");
for (const w of report.warnings) summaryRow("warning", w);

// --- findings ------------------------------------------------------------
function snippet(file, line) {
  const lines = (data.sources[file] || {});
  if (!(String(line) in lines)) return null;
  const pre = el("pre", {class: "snippet"});
  for (let n = Math.max(1, line - 3); n <= line + 3; n++) {
    if (!(String(n) in lines)) continue;
    pre.append(el("span", {class: n === line ? "hit" : ""}, String(n).padStart(5) + "  " + lines[String(n)]));
  }
  return pre;
}

function stackList(e) {
  const ol = el("ol", {class: "stack", start: "0"});
  for (const f of e.stack) {
    const pos = f.file ? " " + f.file + (f.line ? ":" + f.line : "") + (f.column ? ":" + f.column : "") : "";
    const mod = f.module ? " (" + f.module.split("/").pop() + "+0x" + f.offset.toString(16) + ")" : "";
    ol.append(el("li", {class: f.inlined ? "inlined" : ""}, (f.function || "<unknown>") + pos + mod +
                                                           (f.inlined ? " [inlined]" : "")));
  }
  return ol;
}

function eventBlock(title, e) {
  const div = el("div", {class: "event", "data-event": e.index});
  div.append(el("div", {class: "title"}, title + ": " + e.thread_name + " " + e.kind + " at " + where(e) +
                                         " (event " + e.index + ")"));
  if (e.locks_held) {
    const locks = e.locks_held.map(l => (l.name || "0x" + l.lock.toString(16)) + (l.shared ? " (read)" : ""));
    div.append(el("div", {class: "locks"}, "locks held: " + (locks.length ? locks.join(", ") : "none")));
  }
  if (e.stack.length) div.append(stackList(e));
  let shown = 0;
  for (const f of e.stack) {
    if (shown === 2 || !f.file || !f.line || librarySource.test(f.file)) continue;
    const s = snippet(f.file, f.line);
    if (s) { div.append(s); shown++; }
  }
  return div;
}

function lanes(witness, keyEvents) {
  const steps = witness.schedule_tail.map(i => [i, data.schedule_events[String(i)]]).filter(s => s[1]);
  if (!steps.length) return null;
  const threads = [];
  for (const [, e] of steps) if (!threads.some(t => t.thread === e.thread)) threads.push(e);
  const table = el("table", {class: "lanes"});
  const head = el("tr", {}, el("th", {}, "step"));
  for (const t of threads) head.append(el("th", {}, t.thread_name));
  table.append(el("thead", {}, head));
  const body = el("tbody");
  const first = witness.length - steps.length + 1;
  steps.forEach(([index, e], k) => {
    const tr = el("tr", {"data-event": index}, el("td", {class: "step"}, first + k));
    for (const t of threads) {
      if (t.thread !== e.thread) { tr.append(el("td")); continue; }
      tr.append(el("td", {class: keyEvents.includes(index) ? "key" : ""},
                   e.kind + " " + e.object + " at " + e.site + " (event " + index + ")"));
    }
    body.append(tr);
  });
  table.append(body);
  const caption = "witness schedule, " + (witness.validated ? "validated" : "not validated") + ": the last " +
                  steps.length + " of " + witness.length + " steps, one lane per thread";
  return el("div", {class: "witness"}, el("div", {class: "muted"}, caption), table);
}

function card(kind, engines, proven, events, title, badges) {
  const div = el("div", {class: "finding " + (proven ? "proven" : "predicted"), "data-kind": kind,
                         "data-engines": engines.join(" "), "data-events": events.join(",")});
  const h = el("h3", {}, title);
  div.append(h);
  const b = el("div");
  for (const [text, cls] of badges) b.append(el("span", {class: "badge " + (cls || "")}, text));
  div.append(b);
  return div;
}

const sections = [];
function section(kind, title) {
  const s = el("section", {class: "kind", "data-kind": kind}, el("h2", {}, title));
  sections.push(s);
  return s;
}

// Races: one card per distinct pair of locations, every engine that found it.
const groups = new Map();
for (const engine of Object.keys(report.races)) {
  for (const p of report.races[engine].pairs) {
    const key = Math.min(p.first.location, p.second.location) + ":" + Math.max(p.first.location, p.second.location);
    if (!groups.has(key)) groups.set(key, {key, pair: p, engines: p.engines, seen: []});
    groups.get(key).seen.push(engine + " (events " + p.first.index + " and " + p.second.index + ")");
  }
}
const proofRank = {"sound-engine": 0, "witnessed": 1, "first-race": 2, "predicted": 3};
const raceGroups = [...groups.values()].sort((a, b) => proofRank[a.pair.proof] - proofRank[b.pair.proof]);
if (Object.keys(report.races).length) {
  const s = section("race", "Data races: " + raceGroups.length);
  for (const g of raceGroups) {
    const p = g.pair, proven = p.proof !== "predicted";
    const c = card("race", g.engines, proven, [p.first.index, p.second.index],
                   "Data race on " + p.variable +
                   (p.variable_details.name ? " '" + p.variable_details.name + "'" : ""),
                   [[proven ? "proven" : "predicted only", proven ? "proven" : "predicted"],
                    ...g.engines.map(n => [n + " (" + report.races[n].guarantee + ")"])]);
    c.setAttribute("data-locations", g.key);
    c.append(el("div", {class: "proof"}, p.proof_description));
    c.append(eventBlock(p.second.kind + " of size " + p.second.size, p.second));
    c.append(eventBlock("previous " + p.first.kind + " of size " + p.first.size, p.first));
    const v = p.variable_details;
    c.append(el("div", {class: "variable"}, "variable: " + v.kind + (v.name ? " '" + v.name + "'" : "") +
                                            " of size " + v.size + " at 0x" + v.address.toString(16)));
    if (p.occurrences > 1) c.append(el("div", {class: "muted"}, "seen " + p.occurrences + " times"));
    // Engines find the same pair of source positions at different events.
    c.append(el("div", {class: "muted"}, "reported as: " + g.seen.join(", ")));
    if (p.confirmation) { const l = lanes(p.confirmation, [p.first.index, p.second.index]); if (l) c.append(l); }
    s.append(c);
  }
}

if (report.analyses.includes("deadlock") || report.deadlocks.length) {
  const s = section("deadlock", "Deadlocks: " + report.deadlocks.length);
  for (const d of report.deadlocks) {
    const c = card("deadlock", [d.engine], true, d.events.map(e => e.index),
                   "Deadlock on locks " + d.locks.map(lockName).join(", "), [["proven", "proven"], [d.engine + " (" + d.guarantee + ")"]]);
    for (const t of d.cycle) {
      c.append(eventBlock(t.thread_name + " holds " + lockName(t.held_lock) + ", acquired", t.held_acquire));
      c.append(eventBlock(t.thread_name + " wants " + lockName(t.wanted_lock), t.blocked_acquire));
    }
    const l = lanes(d.witness, d.events.map(e => e.index));
    if (l) c.append(l);
    s.append(c);
  }
}

if (report.analyses.includes("lock-order") || report.lock_order_inversions.length) {
  const s = section("lock-order", "Lock-order inversions: " + report.lock_order_inversions.length);
  for (const d of report.lock_order_inversions) {
    const c = card("lock-order", [d.engine], false, d.events.map(e => e.index),
                   "Lock-order inversion on locks " + d.locks.map(lockName).join(", "),
                   [["not a deadlock of this run: threads running these paths at once can deadlock", "predicted"], [d.engine]]);
    for (const t of d.cycle) {
      c.append(eventBlock(t.thread_name + " holds " + lockName(t.held_lock) + ", acquired", t.held_acquire));
      c.append(eventBlock(t.thread_name + " then takes " + lockName(t.wanted_lock), t.blocked_acquire));
    }
    s.append(c);
  }
}

if (report.analyses.includes("atomicity") || report.analyses.includes("atomic-blocks") || report.atomicity.length) {
  const s = section("atomicity", "Atomicity violations: " + report.atomicity.length);
  for (const a of report.atomicity) {
    const c = card("atomicity", [a.engine], true, a.events.map(e => e.index),
                   "Atomicity violation (" + a.pattern + ") on " + a.variable, [["proven", "proven"], [a.engine]]);
    c.append(eventBlock("first access", a.local_first));
    c.append(eventBlock("other thread's access", a.remote));
    c.append(eventBlock("second access", a.local_second));
    if (a.witness.length) {
      const l = lanes(a.witness, a.events.map(e => e.index));
      if (l) c.append(l);
    } else {
      c.append(el("div", {class: "muted"}, "witness: the recorded run itself"));
    }
    s.append(c);
  }
}
const findingsDiv = document.getElementById("findings");
for (const s of sections) findingsDiv.append(s);
if (!sections.length) findingsDiv.append(el("p", {}, "No analysis ran."));

// --- filters -------------------------------------------------------------
const filters = document.getElementById("filters");
const kinds = sections.map(s => s.getAttribute("data-kind"));
const engineNames = [...new Set([...document.querySelectorAll(".finding")]
                                  .flatMap(f => f.getAttribute("data-engines").split(" ")))];
function checkboxes(legend, name, values) {
  const fs = el("fieldset", {}, el("legend", {}, legend));
  for (const v of values) {
    const box = el("input", {type: "checkbox", name, value: v});
    box.checked = true;
    box.addEventListener("change", applyFilters);
    fs.append(el("label", {}, box, " " + v));
  }
  return fs;
}
function applyFilters() {
  const on = name => new Set([...filters.querySelectorAll("input[name=" + name + "]:checked")].map(b => b.value));
  const kindsOn = on("kind"), enginesOn = on("engine");
  for (const f of document.querySelectorAll(".finding")) {
    const show = kindsOn.has(f.getAttribute("data-kind")) &&
                 f.getAttribute("data-engines").split(" ").some(e => enginesOn.has(e));
    f.classList.toggle("hidden", !show);
  }
}
if (kinds.length) filters.append(checkboxes("Kind", "kind", kinds));
if (engineNames.length) filters.append(checkboxes("Engine", "engine", engineNames));
if (!kinds.length) filters.classList.add("hidden");
</script>
</body>
</html>
)html";

}  // namespace

Status HtmlReport(const TraceReader& trace, const Findings& findings, const std::vector<std::string>& analyses,
                  ReportDetails* details, const ReportOptions& options, std::string* out) {
  if (trace.info().modules.empty()) details = nullptr;  // no module map: nothing to symbolise
  std::map<uint64_t, Event> schedule_events;
  Status s = ReadScheduleEvents(trace.info().path, findings, &schedule_events);
  if (!s.ok()) return s.WithContext("reading the witness schedules' events");
  std::error_code ec;
  const fs::path root = options.source_root.empty() ? fs::current_path(ec) : fs::path(options.source_root);

  json page;
  page["report"] = json::parse(JsonReport(trace, findings, analyses, details));
  page["sources"] = Snippets(page["report"], root);
  page["schedule_events"] = ScheduleEventsJson(trace, details, schedule_events);
  // Recorded locks are addresses: the globals they are in name them.
  json lock_names = json::object();
  if (details != nullptr) {
    const ReportNames names(trace);
    auto name_locks = [&](const std::vector<DeadlockThread>& cycle) {
      for (const DeadlockThread& t : cycle)
        for (uint64_t lock : {t.held_lock, t.wanted_lock}) {
          const std::string name = GlobalName(*details, lock);
          if (!name.empty()) lock_names[names.Object(EventKind::kAcquire, lock)] = name;
        }
    };
    for (const Deadlock& d : findings.deadlocks) name_locks(d.cycle);
    for (const LockOrderInversion& inv : findings.lock_order) name_locks(inv.cycle);
  }
  page["lock_names"] = lock_names;
  // Inside <script>, "</script>" or "<!--" in a string would end or change the
  // element: every '<' is written as its JSON escape.
  std::string text = page.dump(-1, ' ', false, json::error_handler_t::replace);
  std::string escaped;
  escaped.reserve(text.size());
  for (char c : text) {
    if (c == '<')
      escaped += "\\u003c";
    else
      escaped += c;
  }
  *out = std::string(kPageHead) + escaped + kPageScript;
  return Status::Ok();
}

}  // namespace seer::predictor
