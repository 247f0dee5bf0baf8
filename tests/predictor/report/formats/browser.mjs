// Headless Chromium for the report-format tests, driven by playwright-core from
// the npm prefix install_tools.sh filled. Collects what a user would see as
// broken: console errors and warnings, uncaught exceptions, and any request
// other than the file itself (the pages must work without a network).
import { createRequire } from "node:module";
import path from "node:path";

export async function openBrowser() {
  const prefix = process.env.SEER_NPM_PREFIX;
  if (!prefix) throw new Error("SEER_NPM_PREFIX is not set");
  const require = createRequire(path.join(prefix, "package.json"));
  const { chromium } = require("playwright-core");
  return chromium.launch({
    executablePath: process.env.SEER_CHROMIUM || "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu"],
  });
}

// A page whose problems are recorded in `problems`; `allowed` are the only
// URLs it may load.
export async function watchedPage(browser, allowed) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const problems = [];
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`uncaught: ${e.message}`));
  page.on("request", (r) => {
    if (!allowed.includes(r.url())) problems.push(`request to ${r.url()}`);
  });
  page.on("requestfailed", (r) => problems.push(`failed request ${r.url()}`));
  return { page, problems };
}

export function fileUrl(p) {
  return "file://" + path.resolve(p).split("/").map(encodeURIComponent).join("/");
}

// Prints the failures and exits 1, or says what passed.
export function finish(name, failures, passed) {
  if (failures.length) {
    for (const f of failures) console.error(`${name}: FAIL: ${f}`);
    process.exit(1);
  }
  console.log(`${name}: ${passed}`);
}
