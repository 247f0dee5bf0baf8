// The daemon's dashboard in headless Chromium: after its first refreshes it
// shows the deadlock finding (with a link to its report) and the contended lock
// `hot` with its call site, and it loads nothing but the daemon's own pages.
// Usage: node dashboard_check.mjs URL SCREENSHOT.png
import { openBrowser, watchedPage, finish } from "../predictor/report/formats/browser.mjs";

const [url, shot] = process.argv.slice(2);
const browser = await openBrowser();
const failures = [];
try {
  const allowed = [url, url + "metrics", url + "findings"];
  const { page, problems } = await watchedPage(browser, allowed);
  await page.goto(url);
  await page.waitForFunction(
      () => document.querySelector("#findings tbody").textContent.includes("deadlock") &&
            document.querySelector("#locks tbody").textContent.includes("hot"),
      null, { timeout: 30000 }).catch(() => failures.push("the finding or the lock did not appear within 30 s"));
  const findings = await page.locator("#findings tbody").innerText();
  const locks = await page.locator("#locks tbody").innerText();
  if (!/first_then_second/.test(findings)) failures.push(`the findings table does not name first_then_second: ${findings}`);
  if (!/hammer/.test(locks)) failures.push(`the lock table does not name the call site in hammer: ${locks}`);
  const hold = await page.evaluate(() => {
    const row = [...document.querySelectorAll("#locks tbody tr")].find(r => r.cells[0].textContent === "hot");
    return row && row.cells.length > 5 ? row.cells[5].textContent : null;
  });
  if (!hold || hold === "-") failures.push(`the lock table shows no mean hold time for hot: ${hold}`);
  const link = await page.locator("#findings tbody a").first().getAttribute("href");
  if (!/^findings\/[0-9a-f]{16}\?format=html$/.test(link || "")) failures.push(`the finding's link is ${link}`);
  // Two more refreshes: the rate chart has points, and a failing fetch would show.
  await page.waitForTimeout(4500);
  await page.screenshot({ path: shot, fullPage: true });
  failures.push(...problems);
  // The link opens the finding's HTML report (self-contained: nothing else is loaded).
  if (link) {
    const report = await watchedPage(browser, [url + link]);
    await report.page.goto(url + link);
    const text = await report.page.locator("body").innerText();
    if (!/deadlock/i.test(text) || !/second_then_first/.test(text))
      failures.push(`the finding's HTML report does not show the deadlock: ${text.slice(0, 300)}`);
    failures.push(...report.problems);
  }
} finally {
  await browser.close();
}
finish("dashboard", failures, `shows the deadlock and the contended lock (${shot})`);
