// What only a real browser shows (run by `npm test` with node:test): the CORS answers work the way
// Chromium enforces them, not just the way a header assertion reads them. A page on a listed origin
// calls the API cross-origin with the key headers (preflighted), reads the exposed headers and a
// problem body; a page on an unlisted origin is refused; and the Swagger UI at /docs renders and its
// "Execute" calls the instance that served it (the document's relative server URL).
// Needs Debian's chromium at /usr/bin/chromium (driven by playwright-core, which never downloads one).
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { freePort, startDevServer } from "../../scripts/lib/dev-server.mjs";
import { guideUrl, listGuides, writeGuideList } from "../../scripts/lib/guides.mjs";
import { serverKeys } from "../../scripts/lib/keys.mjs";
import { copyMigratedState } from "../../scripts/lib/migrated-state.mjs";
import { repoRoot } from "../../scripts/lib/wrangler.mjs";
import { launchChromiumProfile } from "../../scripts/lib/chromium.mjs";
import { chromiumPresent } from "./support/browser.mjs";

const TIMEOUT = { timeout: 60_000 };

/** A static server on 127.0.0.1 answering every path with an empty page: the origin a client page runs on. */
async function startPageServer() {
  const port = await freePort();
  const server = createServer((_request, response) =>
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end("<!doctype html><title>client</title>"),
  );
  await new Promise((resolve, reject) => server.once("error", reject).listen(port, "127.0.0.1", resolve));
  return { origin: `http://127.0.0.1:${port}`, port, close: () => new Promise((resolve) => server.close(resolve)) };
}

if (chromiumPresent("browser test")) {
  const state = mkdtempSync(join(tmpdir(), "browser-test-"));
  const profile = mkdtempSync(join(tmpdir(), "browser-test-profile-"));
  let server, listed, unlisted, browser, key;

  /** Opens a page on `origin` and runs `calls(apiBase, key)` inside it: plain data comes back. */
  async function inPage(origin, calls) {
    const page = await browser.newPage();
    try {
      await page.goto(`${origin}/`);
      return await page.evaluate(calls, { apiBase: server.baseUrl, key });
    } finally {
      await page.close();
    }
  }

  before(
    async () => {
      [listed, unlisted] = await Promise.all([startPageServer(), startPageServer()]);
      await copyMigratedState(state);
      writeGuideList();
      server = await startDevServer({ persistTo: state, vars: { CORS_ORIGINS: listed.origin } });
      [{ key }] = await serverKeys(server.operator).issue([{ tenant: "browser", role: "OPERATOR" }]);
      browser = await launchChromiumProfile(profile);
    },
    { timeout: 180_000 },
  );

  after(async () => {
    await browser?.close();
    await server?.stop();
    await Promise.all([listed?.close(), unlisted?.close()]);
    rmSync(state, { recursive: true, force: true });
    rmSync(profile, { recursive: true, force: true });
  });

  describe("a page on a listed origin", () => {
    it("calls the API with the key headers (preflighted) and reads the exposed headers and problem bodies", TIMEOUT, async () => {
      const seen = await inPage(listed.origin, async ({ apiBase, key }) => {
        const auth = { "svc-client": "OPERATOR", "svc-api-key": key };
        const list = await fetch(`${apiBase}/v1/operations`, { headers: auth });
        const created = await fetch(`${apiBase}/v1/operations`, {
          method: "POST",
          headers: { ...auth, "content-type": "application/json", "Idempotency-Key": `browser-${Date.now()}` },
          body: JSON.stringify({
            code: `BROWSER-${Date.now()}`,
            name: { en: "From a browser" },
            type: "PUBLIC",
            startDate: "2098-01-01T00:00:00Z",
            endDate: "2099-01-01T00:00:00Z",
          }),
        });
        const refused = await fetch(`${apiBase}/v1/operations`);
        return {
          list: { status: list.status, requestId: list.headers.get("x-request-id"), items: (await list.json()).items },
          created: { status: created.status, location: created.headers.get("location"), body: await created.json() },
          refused: { status: refused.status, requestId: refused.headers.get("x-request-id"), body: await refused.json() },
        };
      });
      assert.equal(seen.list.status, 200);
      assert.ok(seen.list.requestId, "x-request-id is exposed to the page");
      assert.ok(Array.isArray(seen.list.items));
      assert.equal(seen.created.status, 201, JSON.stringify(seen.created.body));
      assert.ok(seen.created.location?.endsWith(`/v1/operations/${seen.created.body.id}`), `Location readable: ${seen.created.location}`);
      assert.equal(seen.refused.status, 401);
      assert.equal(seen.refused.body.code, "unauthorized");
      assert.ok(seen.refused.requestId, "a problem answer exposes x-request-id too");
    });
  });

  describe("a page on an origin not listed", () => {
    it("is refused by the browser, with and without a preflight", TIMEOUT, async () => {
      const seen = await inPage(unlisted.origin, async ({ apiBase, key }) => {
        const attempt = (path, init) =>
          fetch(`${apiBase}${path}`, init).then(
            (r) => ({ status: r.status }),
            (e) => ({ error: `${e.name}: ${e.message}` }),
          );
        return [await attempt("/healthz"), await attempt("/v1/operations", { headers: { "svc-client": "OPERATOR", "svc-api-key": key } })];
      });
      assert.deepEqual(seen, [{ error: "TypeError: Failed to fetch" }, { error: "TypeError: Failed to fetch" }]);
    });
  });

  describe("the reference page at /docs", () => {
    let page;
    before(async () => {
      page = await browser.newPage();
      await page.goto(`${server.baseUrl}/docs`);
      await page.locator("#operations-Service-getHealth").waitFor({ timeout: 30_000 });
    });
    after(() => page?.close());

    /** Expands an operation, presses Execute (app.js turns "Try it out" on), and returns what the page sent and shows. */
    async function execute(blockId, path) {
      const block = page.locator(`#${blockId}`);
      await block.locator(".opblock-summary-control").click();
      const tryOut = block.locator(".try-out__btn:not(.cancel)");
      if (await tryOut.count()) await tryOut.click();
      const sent = page.waitForRequest((request) => new URL(request.url()).pathname === path);
      await block.locator("button.execute").click();
      const request = await sent;
      const live = block.locator(".live-responses-table .response");
      await live.locator(".response-col_status").waitFor();
      return {
        request,
        status: (await live.locator(".response-col_status").innerText()).trim(),
        body: await live.locator(".response-col_description").innerText(),
      };
    }

    it("renders, and Execute on GET /healthz calls the instance that served it", TIMEOUT, async () => {
      const { request, status, body } = await execute("operations-Service-getHealth", "/healthz");
      assert.equal(new URL(request.url()).origin, server.baseUrl, "the relative server URL resolves to this instance");
      assert.equal(status, "200");
      assert.match(body, /"status":\s*"ok"/);
    });

    it("lists every guide of docs/ above the reference by its title, a link to its text, and its repository path", TIMEOUT, async () => {
      await page.locator("#guides-list li").first().waitFor({ timeout: 10_000 });
      const shown = await page.locator("#guides-list li").allInnerTexts();
      assert.deepEqual(
        shown,
        listGuides().map((guide) => `${guide.title} (${guide.path})`),
      );
      const keys = listGuides().find((guide) => guide.path === "docs/keys.md");
      const link = page.getByRole("link", { name: keys.title, exact: true });
      assert.equal(await link.getAttribute("href"), guideUrl(keys.path));
      // Plain text in UTF-8, which every browser shows (some save text/markdown rather than show it).
      const served = await fetch(`${server.baseUrl}${guideUrl(keys.path)}`);
      await served.arrayBuffer();
      assert.equal(served.headers.get("content-type"), "text/plain; charset=utf-8");
      // The guide's text, as a browser shows it ("…", "→" and "–" as written).
      const guide = await page.context().newPage();
      try {
        await guide.goto(new URL(await link.getAttribute("href"), server.baseUrl).href);
        assert.equal((await guide.locator("body").innerText()).trimEnd(), readFileSync(join(repoRoot, keys.path), "utf8").trimEnd());
      } finally {
        await guide.close();
      }
    });

    it("Authorize with svcClient and svcApiKey, then Execute on GET /v1/operations: 200", TIMEOUT, async () => {
      await page.locator(".auth-wrapper .btn.authorize").click();
      for (const [scheme, value] of [
        ["svcClient", "OPERATOR"],
        ["svcApiKey", key],
      ]) {
        const container = page.locator(".modal-ux .auth-container").filter({ has: page.locator("h4 code", { hasText: new RegExp(`^${scheme}$`) }) });
        await container.locator("input").fill(value);
        await container.locator("button.authorize").click();
        await container.locator("button", { hasText: "Logout" }).waitFor();
      }
      await page.locator(".modal-ux .btn-done").first().click();
      const { request, status, body } = await execute("operations-Operations-listOperations", "/v1/operations");
      assert.equal(new URL(request.url()).origin, server.baseUrl);
      const headers = request.headers();
      assert.equal(headers["svc-client"], "OPERATOR");
      assert.equal(headers["svc-api-key"], key);
      assert.equal(status, "200", body);
      assert.match(body, /"items"/);
    });
  });
}
