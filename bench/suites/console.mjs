// Issue 27: the console in headless Chromium against the bench Worker. Time from navigation to the
// first grid rows and to all 5000 lines; pasting 5000 rows and Save until the server confirms;
// scrolling the whole grid (the most row elements in the DOM at once); the console's JS and CSS, gzipped.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { buildConsole } from "../../scripts/build-console.mjs";
import { launchChromium } from "../../scripts/lib/chromium.mjs";
import { repoRoot } from "../../scripts/lib/wrangler.mjs";

const LINES = 5000;
const ROUNDS = 3;

const block = (count, round) => Array.from({ length: count }, (_, i) => `SKU-${String(i).padStart(5, "0")}\tItem ${i}\t1\t${10 + round}\t5`).join("\n");
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export default async function consoleSuite(ctx) {
  await buildConsole({ ifChanged: true });
  const { operator } = await ctx.newTenant();
  let made = 0;
  const newOperation = async () =>
    (
      await ctx.expect(operator, "POST", "/v1/operations", {
        code: `CONSOLE-${Date.now().toString(36)}-${++made}`,
        name: { en: `Console bench ${made}` },
        type: "PUBLIC",
        startDate: "2098-01-01T00:00:00Z",
        endDate: "2098-12-31T00:00:00Z",
      })
    ).body.id;
  const full = await newOperation();
  const lines = Array.from({ length: LINES }, (_, i) => ({ variantExternalId: `SKU-${String(i).padStart(5, "0")}`, variantName: { en: `Item ${i}` }, minQuantity: 1, maxQuantity: 10, recommendedQuantity: 5 }));
  await ctx.expect(operator, "PUT", `/v1/operations/${full}/lines`, lines, 200);

  const browser = await launchChromium();
  const session = JSON.stringify({ apiKey: operator.key, role: "OPERATOR" });
  const openPage = async () => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    await context.addInitScript((value) => sessionStorage.setItem("campaign-console-session", value), session);
    return { context, page: await context.newPage() };
  };
  const rowCount = (page, expected) => page.waitForFunction((n) => document.querySelector('[role="grid"]')?.getAttribute("aria-rowcount") === String(n), expected, { timeout: 60_000, polling: 10 });

  try {
    const firstRows = [];
    const allRows = [];
    let maxRowElements = 0;
    let scrollMs = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const { context, page } = await openPage();
      const started = Date.now();
      await page.goto(`${ctx.baseUrl}/console/operations/${full}`);
      await page.locator('[role="gridcell"]').first().waitFor({ timeout: 60_000 });
      firstRows.push(Date.now() - started);
      await rowCount(page, LINES + 1);
      allRows.push(Date.now() - started);
      if (round === ROUNDS - 1) {
        // Scroll the whole grid a screenful at a time, counting row elements after each step.
        const scrolled = Date.now();
        maxRowElements = await page.evaluate(async () => {
          const body = document.querySelector(".grid-body");
          let most = 0;
          while (body.scrollTop + body.clientHeight < body.scrollHeight - 1) {
            body.scrollTop += body.clientHeight;
            await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
            most = Math.max(most, document.querySelectorAll('[role="grid"] [role="row"]').length);
          }
          return most;
        });
        scrollMs = Date.now() - scrolled;
      }
      await context.close();
    }

    const pasteSave = [];
    for (let round = 0; round < ROUNDS; round++) {
      const operationId = await newOperation();
      const { context, page } = await openPage();
      await page.goto(`${ctx.baseUrl}/console/operations/${operationId}`);
      await page.getByRole("grid").waitFor();
      await page.getByRole("grid").focus();
      const text = block(LINES, round);
      const started = Date.now();
      await page.getByRole("grid").evaluate((element, value) => {
        const data = new DataTransfer();
        data.setData("text/plain", value);
        element.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
      }, text);
      await page.getByRole("button", { name: "Save" }).click();
      await page.getByRole("status").filter({ hasText: `Saved: ${LINES} created` }).waitFor({ timeout: 60_000 });
      pasteSave.push(Date.now() - started);
      await context.close();
    }

    const assets = join(repoRoot, "public", "console", "assets");
    const gzipped = (ext) => readdirSync(assets).filter((file) => file.endsWith(ext)).reduce((sum, file) => sum + gzipSync(readFileSync(join(assets, file)), { level: 9 }).length, 0);
    const js = gzipped(".js");
    const css = gzipped(".css");
    const html = gzipSync(readFileSync(join(repoRoot, "public", "console", "index.html"))).length;
    const kib = (bytes) => Math.round((bytes / 1024) * 10) / 10;
    return {
      title: `The console in headless Chromium (${LINES} lines, median of ${ROUNDS} fresh tabs)`,
      rows: [
        { figure: "navigation → first grid rows (ms)", value: median(firstRows), goal: "≤ 1000", samples: firstRows.join(" ") },
        { figure: `navigation → all ${LINES} lines loaded (ms)`, value: median(allRows), goal: "≤ 2500", samples: allRows.join(" ") },
        { figure: `paste ${LINES} rows + Save until confirmed (ms)`, value: median(pasteSave), goal: "≤ 2000", samples: pasteSave.join(" ") },
        { figure: "scroll the whole grid: most row elements in the DOM", value: maxRowElements, goal: "≤ 200", samples: `${scrollMs} ms to scroll` },
        { figure: "first load JS + CSS + HTML, gzip (KiB)", value: kib(js + css + html), goal: "≤ 150", samples: `JS ${kib(js)}, CSS ${kib(css)}, HTML ${kib(html)}` },
      ],
    };
  } finally {
    await browser.close();
  }
}
