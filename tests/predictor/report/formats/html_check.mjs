// The HTML report in a real headless Chromium: it loads with no console error
// and no network request, its DOM holds every finding of the JSON report of the
// same trace (race pairs by their locations and engines, deadlocks and
// atomicity violations by their events) with their source lines, each
// witnessed finding has its thread lanes, and the filters hide and show
// findings. A screenshot is left next to the report.
// usage: node html_check.mjs REPORT.html REPORT.json SCREENSHOT.png
import fs from "node:fs";
import path from "node:path";
import { openBrowser, watchedPage, fileUrl, finish } from "./browser.mjs";

const [htmlPath, jsonPath, shotPath] = process.argv.slice(2);
const report = JSON.parse(fs.readFileSync(jsonPath, "utf8"));
const failures = [];

function where(e) {
  return e.file && e.line ? path.basename(e.file) + ":" + e.line : null;
}

const browser = await openBrowser();
try {
  const url = fileUrl(htmlPath);
  const { page, problems } = await watchedPage(browser, [url]);
  await page.goto(url, { waitUntil: "load" });
  const cards = await page.$$eval(".finding", (nodes) =>
    nodes.map((n) => ({
      kind: n.getAttribute("data-kind"),
      engines: n.getAttribute("data-engines").split(" "),
      events: n.getAttribute("data-events"),
      locations: n.getAttribute("data-locations"),
      text: n.textContent,
      lanes: n.querySelectorAll("table.lanes").length,
      keyCells: n.querySelectorAll("table.lanes td.key").length,
      snippets: n.querySelectorAll("pre.snippet").length,
    })),
  );

  // Every race pair of every engine, by its unordered locations.
  const racePairs = new Set();
  for (const [engine, result] of Object.entries(report.races)) {
    for (const p of result.pairs) {
      const key = Math.min(p.first.location, p.second.location) + ":" + Math.max(p.first.location, p.second.location);
      racePairs.add(key);
      const card = cards.find((c) => c.kind === "race" && c.locations === key);
      if (!card) { failures.push(`race pair ${key} of ${engine} is not on the page`); continue; }
      if (!card.engines.includes(engine)) failures.push(`race pair ${key}: engine ${engine} not listed`);
      for (const e of [p.first, p.second]) {
        const w = where(e);
        if (w && !card.text.includes(w)) failures.push(`race pair ${key}: ${w} not shown`);
      }
      const seen = `${engine} (events ${p.first.index} and ${p.second.index})`;
      if (!card.text.includes(seen)) failures.push(`race pair ${key}: "${seen}" not shown`);
      if (!card.text.includes(p.proof_description)) failures.push(`race pair ${key}: its proof is not shown`);
    }
  }
  const raceCards = cards.filter((c) => c.kind === "race").length;
  if (raceCards !== racePairs.size) failures.push(`${raceCards} race cards for ${racePairs.size} distinct pairs`);

  for (const [kind, list] of [["deadlock", report.deadlocks], ["atomicity", report.atomicity]]) {
    const onPage = cards.filter((c) => c.kind === kind);
    if (onPage.length !== list.length) failures.push(`${onPage.length} ${kind} cards for ${list.length} findings`);
    for (const f of list) {
      const events = f.events.map((e) => e.index).join(",");
      const card = onPage.find((c) => c.events === events);
      if (!card) { failures.push(`${kind} with events ${events} is not on the page`); continue; }
      for (const e of f.events) {
        const w = where(e);
        if (w && !card.text.includes(w)) failures.push(`${kind} ${events}: line of ${w} not shown`);
      }
      if (f.witness.length > 0 && card.lanes !== 1) failures.push(`${kind} ${events}: no witness lanes`);
      if (f.witness.length > 0 && card.keyCells < 1) failures.push(`${kind} ${events}: its events are not marked in the lanes`);
    }
  }
  if (!cards.some((c) => c.snippets > 0)) failures.push("no source snippet on the page");

  // The filters: hiding a kind hides exactly its cards.
  const kinds = [...new Set(cards.map((c) => c.kind))];
  for (const kind of kinds) {
    await page.uncheck(`#filters input[name=kind][value=${kind}]`);
    const visible = await page.$$eval(".finding", (nodes) =>
      nodes.filter((n) => getComputedStyle(n).display !== "none").map((n) => n.getAttribute("data-kind")));
    if (visible.includes(kind)) failures.push(`filter: ${kind} cards still visible when unchecked`);
    if (visible.length !== cards.filter((c) => c.kind !== kind).length) failures.push(`filter: hiding ${kind} hid others`);
    await page.check(`#filters input[name=kind][value=${kind}]`);
  }

  await page.screenshot({ path: shotPath, fullPage: true });
  failures.push(...problems);
  finish("html report", failures,
         `${cards.length} findings on the page (${racePairs.size} race pairs, ${report.deadlocks.length} deadlocks, ` +
         `${report.atomicity.length} atomicity violations), no console error, screenshot ${shotPath}`);
} finally {
  await browser.close();
}
