// A timeline from `seer export --format perfetto`, opened in a real headless
// Chromium by our small viewer (timeline_viewer.html, through its file input as
// a user would): it parses, draws one track per named thread and one box per
// B/E span with no console error, and a screenshot is left next to it.
// usage: node timeline_check.mjs TIMELINE.json VIEWER.html SCREENSHOT.png
import fs from "node:fs";
import { openBrowser, watchedPage, fileUrl, finish } from "./browser.mjs";

const [timelinePath, viewerPath, shotPath] = process.argv.slice(2);
const doc = JSON.parse(fs.readFileSync(timelinePath, "utf8"));
const failures = [];
const count = (ph) => doc.traceEvents.filter((e) => e.ph === ph).length;
const threads = doc.traceEvents.filter((e) => e.ph === "M" && e.name === "thread_name").length;

const browser = await openBrowser();
try {
  const url = fileUrl(viewerPath);
  const { page, problems } = await watchedPage(browser, [url]);
  await page.goto(url, { waitUntil: "load" });
  await page.setInputFiles("#file", timelinePath);
  await page.waitForFunction(() => document.getElementById("stats").textContent !== "", null, { timeout: 30000 });
  const stats = JSON.parse(await page.textContent("#stats"));
  if (stats.tracks !== threads) failures.push(`${stats.tracks} tracks drawn for ${threads} named threads`);
  if (stats.spans !== count("B")) failures.push(`${stats.spans} spans drawn for ${count("B")} B events`);
  if (stats.instants !== count("i")) failures.push(`${stats.instants} instants drawn for ${count("i")}`);
  if (stats.spans === 0) failures.push("no span drawn");
  const boxes = await page.$$eval(".span", (n) => n.length);
  if (boxes !== stats.spans) failures.push(`${boxes} span boxes in the DOM for ${stats.spans} spans`);
  await page.screenshot({ path: shotPath, fullPage: true });
  failures.push(...problems);
  finish("timeline", failures,
         `${stats.tracks} tracks, ${stats.spans} spans (depth ${stats.maxDepth}), ${stats.instants} findings marks, ` +
         `${stats.flows} flow ends drawn in Chromium, screenshot ${shotPath}`);
} finally {
  await browser.close();
}
