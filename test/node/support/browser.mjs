// Headless Chromium for the node:test suites, against a local `wrangler dev` (npm test's shared one, or their own).
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { it } from "node:test";
import { buildConsole } from "../../../scripts/build-console.mjs";
import { CHROMIUM, launchChromiumProfile } from "../../../scripts/lib/chromium.mjs";
import { serverKeys } from "../../../scripts/lib/keys.mjs";
import { localServer } from "../../../scripts/lib/shared-server.mjs";

/**
 * Whether Chromium is here. When it is not, registers one test that skips (fails on CI, which must
 * install it: see .ci/run) and answers false, so the suite defines nothing else.
 */
export function chromiumPresent(what) {
  if (existsSync(CHROMIUM)) return true;
  const missing = `${CHROMIUM} is missing: install chromium (apt-get install -y chromium) to run the ${what}`;
  it(`drives headless Chromium (${what})`, (t) => {
    if (process.env.CI) assert.fail(`${missing} (CI must install it: see .ci/run)`);
    console.warn(`\n*** SKIPPED ${what}: ${missing} ***\n`);
    t.skip(missing);
  });
  return false;
}

/**
 * The console served by a local server: npm test's shared one when it has every variable of `vars`,
 * else a fresh one with its own state. Keys for `tenant` (an OPERATOR key, an ACCOUNT key for user
 * u_console), Chromium at 1440×900. `close()` removes everything but the shared server.
 */
export async function startConsole({ tenant = "console", vars } = {}) {
  const profile = mkdtempSync(join(tmpdir(), `${tenant}-profile-`));
  await buildConsole({ ifChanged: true });
  const server = await localServer(tenant, vars);
  // Through the server's operator routes: a wrangler process writing the state would take seconds.
  const [{ key: operatorKey }, { key: accountKey }] = await serverKeys(server.operator).issue([
    { tenant, role: "OPERATOR" },
    { tenant, role: "ACCOUNT", user: "u_console" },
  ]);
  const browser = await launchChromiumProfile(profile, { viewport: { width: 1440, height: 900 } });
  const baseUrl = server.baseUrl;

  return {
    server,
    browser,
    baseUrl,
    operatorKey,
    accountKey,

    /** Signs in on `page` (a tab of its own starts signed out: the key lives in sessionStorage). */
    async signIn(page, key, role) {
      await page.goto(`${baseUrl}/console`);
      await page.getByLabel("API key").fill(key);
      await page.getByLabel("Role").selectOption(role);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("heading", { name: "Operations" }).waitFor();
    },

    /** A direct API call (what another person does meanwhile), as the OPERATOR key unless told. */
    async api(method, path, body, { key = operatorKey, role = "OPERATOR", headers = {} } = {}) {
      const response = await fetch(`${baseUrl}${path}`, {
        method,
        headers: { "svc-client": role, "svc-api-key": key, "content-type": "application/json", ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined };
    },

    async close() {
      await browser.close();
      await server.stop();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * What `read` answers in the page once it answers `expected`, or its last answer after `timeoutMs`: for
 * what an effect sets after a render (where the focus goes back), which a busy machine runs a moment later.
 */
export async function settled(page, read, expected, timeoutMs = 10_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await page.evaluate(read);
    if (value === expected || Date.now() > until) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** CONSOLE_SCREENSHOTS=dir saves what the page looks like, wide (1440×900) and narrow (390 wide, whole page). */
export async function screenshot(page, name) {
  const dir = process.env.CONSOLE_SCREENSHOTS;
  if (!dir) return;
  await page.screenshot({ path: join(dir, `${name}-wide.png`) });
  await page.setViewportSize({ width: 390, height: 844 });
  // The grid lays itself out again once it has seen the new width (a resize observer, then a render).
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  await page.screenshot({ path: join(dir, `${name}-narrow.png`), fullPage: true });
  await page.setViewportSize({ width: 1440, height: 900 });
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/**
 * Runs axe-core on the page as it stands and fails on any serious or critical violation, naming
 * each rule and the elements it found.
 */
export async function assertAccessible(page, label) {
  // Evaluated, not added as an inline <script>: the console's policy refuses inline scripts.
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(`${axeSource}\n;undefined`);
  const violations = await page.evaluate(async () => {
    // @ts-expect-error axe is the script just added
    const result = await window.axe.run(document, { resultTypes: ["violations"] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.slice(0, 5).map((n) => n.target.join(" ")) }));
  });
  const grave = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  assert.deepEqual(grave, [], `${label}: ${grave.map((v) => `${v.impact} ${v.id} (${v.help}) at ${v.targets.join(", ")}`).join("; ")}`);
}

/** Lists (ListTable) whose content is wider than their box at the page's current width: their labels. */
async function listsScrollingSideways(page) {
  return page.evaluate(() =>
    [...document.querySelectorAll("table.list.stackable")]
      .filter((table) => table.parentElement && table.parentElement.scrollWidth > table.parentElement.clientWidth + 1)
      .map((table) => table.getAttribute("aria-label")),
  );
}

/**
 * axe-core in the light and the dark color scheme (and screenshots of both when CONSOLE_SCREENSHOTS
 * is set), then on a phone's width (390 px), where no list may scroll sideways: its rows stack.
 */
export async function checkPage(page, label) {
  for (const colorScheme of ["light", "dark"]) {
    await page.emulateMedia({ colorScheme });
    await assertAccessible(page, `${label} (${colorScheme})`);
    await screenshot(page, `${label}-${colorScheme}`);
  }
  await page.emulateMedia({ colorScheme: "light" });
  const viewport = page.viewportSize();
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    await assertAccessible(page, `${label} (390 px wide)`);
    assert.deepEqual(await listsScrollingSideways(page), [], `${label}: lists wider than a 390 px screen`);
  } finally {
    if (viewport) await page.setViewportSize(viewport);
  }
}

/**
 * axe-core in both color schemes at 1440 and 390 px, with screenshots of each (CONSOLE_SCREENSHOTS):
 * for a page holding a grid, which scrolls sideways on a phone (its first column stays) where lists stack.
 */
export async function checkGridPage(page, name) {
  for (const colorScheme of ["light", "dark"]) {
    await page.emulateMedia({ colorScheme });
    for (const width of [1440, 390]) {
      await page.setViewportSize({ width, height: width > 500 ? 900 : 844 });
      await assertAccessible(page, `${name} (${colorScheme}, ${width} px)`);
    }
    await page.setViewportSize({ width: 1440, height: 900 });
    await screenshot(page, `${name}-${colorScheme}`);
  }
  await page.emulateMedia({ colorScheme: "light" });
}

/** The code of line i of `itemLines` (SKU-00000, SKU-00001…): sorts as the lines were made. */
export const itemSku = (i) => `SKU-${String(i).padStart(5, "0")}`;

/** `count` lines "Item i" of minimum 1, maximum 10, recommended 5: what the grid tests edit. */
export const itemLines = (count) =>
  Array.from({ length: count }, (_, i) => ({
    variantExternalId: itemSku(i),
    variantName: { en: `Item ${i}` },
    minQuantity: 1,
    maxQuantity: 10,
    recommendedQuantity: 5,
  }));

/** A PUBLIC Operation in 2098 (DRAFT), with `lines`, through the API of `startConsole`: its id. */
export async function createOperationWithLines(api, { code, name, lines }) {
  const created = await api("POST", "/v1/operations", {
    code,
    name: { en: name },
    type: "PUBLIC",
    startDate: "2098-01-01T00:00:00Z",
    endDate: "2098-12-31T00:00:00Z",
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const operationId = created.body.id;
  const put = await api("PUT", `/v1/operations/${operationId}/lines`, lines);
  assert.equal(put.status, 200, JSON.stringify(put.body));
  return operationId;
}
