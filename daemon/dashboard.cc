#include "daemon/dashboard.h"

namespace seer::daemon {

namespace {

// Rates are computed in the page from successive scrapes of /metrics, as a
// Prometheus rate() would be; the page keeps the last 120 samples.
const char kPage[] = R"HTML(<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>seer daemon</title><link rel="icon" href="data:,">
<style>
body{font:14px system-ui,sans-serif;margin:1.5em;color:#222;background:#fafafa}
h1{font-size:1.3em;margin:0 0 .5em} h2{font-size:1.05em;margin:1.2em 0 .4em}
table{border-collapse:collapse;width:100%;background:#fff}
th,td{border:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f0f0f0} td.n{text-align:right;font-variant-numeric:tabular-nums}
.kind-deadlock{color:#b00020;font-weight:600} .kind-race{color:#a05a00;font-weight:600}
canvas{background:#fff;border:1px solid #ddd} .muted{color:#777} #status{float:right}
</style></head><body>
<h1>seer daemon <span id="status" class="muted">loading…</span></h1>
<div id="summary" class="muted"></div>
<h2>Events and losses per second</h2>
<canvas id="rates" width="900" height="160"></canvas>
<div class="muted">blue: events recorded/s, red: events lost/s (from analysed windows)</div>
<h2>Findings</h2>
<table id="findings"><thead><tr><th>kind</th><th>engine</th><th>finding</th><th>first seen</th><th>last seen</th><th>windows</th></tr></thead><tbody></tbody></table>
<h2>Most contended locks</h2>
<table id="locks"><thead><tr><th>lock</th><th>call site</th><th>contended</th><th>acquisitions</th><th>mean wait</th><th>mean hold</th></tr></thead><tbody></tbody></table>
<h2>Targets</h2>
<table id="targets"><thead><tr><th>target</th><th>mode</th><th>up</th><th>windows written</th></tr></thead><tbody></tbody></table>
<script>
"use strict";
const history = [];
function parseMetrics(text) {
  const out = [];
  for (const line of text.split("\n")) {
    if (!line || line[0] === "#") continue;
    const m = line.match(/^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$/);
    if (!m) continue;
    const labels = {};
    if (m[3]) for (const l of m[3].matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[l[1]] = l[2].replace(/\\n/g, "\n").replace(/\\"/g, '"').replace(/\\\\/g, "\\");
    out.push({name: m[1], labels, value: parseFloat(m[4])});
  }
  return out;
}
function sum(ms, name) { return ms.filter(m => m.name === name).reduce((a, m) => a + m.value, 0); }
function cell(row, text, cls) { const td = row.insertCell(); td.textContent = text; if (cls) td.className = cls; return td; }
function fmtSeconds(s) { return s >= 1 ? s.toFixed(2) + " s" : s >= 1e-3 ? (s * 1e3).toFixed(2) + " ms" : (s * 1e6).toFixed(1) + " µs"; }
function drawRates() {
  const c = document.getElementById("rates"), g = c.getContext("2d");
  g.clearRect(0, 0, c.width, c.height);
  const pts = [];
  for (let i = 1; i < history.length; i++) {
    const dt = (history[i].t - history[i - 1].t) / 1000;
    if (dt <= 0) continue;
    pts.push({ev: (history[i].events - history[i - 1].events) / dt, lost: (history[i].lost - history[i - 1].lost) / dt});
  }
  const max = Math.max(1, ...pts.map(p => Math.max(p.ev, p.lost)));
  g.fillStyle = "#777"; g.fillText(max.toFixed(0) + "/s", 4, 12);
  for (const [key, color] of [["ev", "#1f5fbf"], ["lost", "#c0392b"]]) {
    g.strokeStyle = color; g.beginPath();
    pts.forEach((p, i) => { const x = c.width * i / Math.max(pts.length - 1, 1), y = c.height - 4 - (c.height - 20) * p[key] / max; i ? g.lineTo(x, y) : g.moveTo(x, y); });
    g.stroke();
  }
}
async function refresh() {
  try {
    const [mt, fj] = await Promise.all([fetch("metrics").then(r => r.text()), fetch("findings").then(r => r.json())]);
    const ms = parseMetrics(mt);
    history.push({t: Date.now(), events: sum(ms, "seer_events_recorded_total"), lost: sum(ms, "seer_events_lost_total")});
    if (history.length > 120) history.shift();
    drawRates();
    document.getElementById("summary").textContent =
      `${sum(ms, "seer_windows_analysed_total")} windows analysed, ${sum(ms, "seer_events_recorded_total")} events, ` +
      `${sum(ms, "seer_events_lost_total")} lost, ${fj.findings.length} findings`;
    const fb = document.querySelector("#findings tbody"); fb.innerHTML = "";
    for (const f of fj.findings) {
      const r = fb.insertRow();
      cell(r, f.kind, "kind-" + f.kind); cell(r, f.engine);
      const a = document.createElement("a"); a.href = "findings/" + f.id + "?format=html"; a.textContent = f.summary;
      const t = document.createElement("a"); t.href = "findings/" + f.id + "?format=text"; t.textContent = "text";
      const c = r.insertCell(); c.append(a, " (", t, ")");
      cell(r, f.first_seen); cell(r, f.last_seen); cell(r, f.windows, "n");
    }
    if (!fj.findings.length) cell(fb.insertRow(), "no findings yet").colSpan = 6;
    const locks = {};
    for (const m of ms) {
      if (!m.labels.lock) continue;
      const k = m.labels.lock + "\u0000" + m.labels.site;
      const l = locks[k] || (locks[k] = {lock: m.labels.lock, site: m.labels.site, contended: 0, acq: 0, wait: 0, hold: 0, held: 0});
      if (m.name === "seer_lock_contended_acquisitions_total") l.contended = m.value;
      if (m.name === "seer_lock_acquisitions_total") l.acq = m.value;
      if (m.name === "seer_lock_wait_seconds_sum") l.wait = m.value;
      if (m.name === "seer_lock_hold_seconds_sum") l.hold = m.value;
      if (m.name === "seer_lock_hold_seconds_count") l.held = m.value;
    }
    const lb = document.querySelector("#locks tbody"); lb.innerHTML = "";
    const top = Object.values(locks).filter(l => l.contended > 0).sort((a, b) => b.wait - a.wait || b.contended - a.contended).slice(0, 20);
    for (const l of top) {
      const r = lb.insertRow();
      cell(r, l.lock); cell(r, l.site); cell(r, l.contended, "n"); cell(r, l.acq, "n"); cell(r, fmtSeconds(l.wait / l.contended), "n");
      cell(r, l.held ? fmtSeconds(l.hold / l.held) : "-", "n");
    }
    if (!top.length) cell(lb.insertRow(), "no contended acquisition recorded yet").colSpan = 6;
    const tb = document.querySelector("#targets tbody"); tb.innerHTML = "";
    for (const m of ms.filter(m => m.name === "seer_target_up")) {
      const r = tb.insertRow();
      cell(r, m.labels.target); cell(r, m.labels.mode || "-"); cell(r, m.value ? "yes" : "no");
      cell(r, sum(ms.filter(x => x.labels.target === m.labels.target), "seer_windows_written_total"), "n");
    }
    document.getElementById("status").textContent = "updated " + new Date().toLocaleTimeString();
  } catch (e) {
    document.getElementById("status").textContent = "cannot reach the daemon: " + e;
  }
}
refresh();
setInterval(refresh, 2000);
</script></body></html>
)HTML";

}  // namespace

const std::string& DashboardPage() {
  static const std::string page(kPage);
  return page;
}

}  // namespace seer::daemon
