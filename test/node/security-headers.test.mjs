// The console and the reference under their Content-Security-Policy, in headless Chromium: signing in,
// every console page and /docs work without the browser refusing anything (a refusal is a
// securitypolicyviolation event or a "Refused to …" console message, and fails the test); every
// answer of the server carries the security headers; and a page on another origin that frames the
// console or the reference gets an error page in the frame, not the sign-in form.
// Needs Debian's chromium at /usr/bin/chromium (driven by playwright-core, which never downloads one).
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { after, before, describe, it } from "node:test";
import { freePort } from "../../scripts/lib/dev-server.mjs";
import { chromiumPresent, startConsole } from "./support/browser.mjs";

const TIMEOUT = { timeout: 120_000 };

/**
 * A page of another origin (a free port on 127.0.0.1) framing `targets` (id → URL), and one page of
 * its own origin (/own: a "Sign in" button) that it may frame: what a framed page looks like when
 * the browser lets it render.
 */
async function startFramingSite(targets) {
  const port = await freePort();
  const page = `<!doctype html><title>framer</title>${Object.entries(targets)
    .map(([id, url]) => `<iframe id="${id}" src="${url}" width="600" height="400"></iframe>`)
    .join("")}<iframe id="own" src="/own"></iframe>`;
  const server = createServer((request, response) => {
    response
      .writeHead(200, { "content-type": "text/html; charset=utf-8" })
      .end(request.url === "/own" ? "<!doctype html><title>own</title><button>Sign in</button>" : page);
  });
  await new Promise((resolve, reject) => server.once("error", reject).listen(port, "127.0.0.1", resolve));
  return { origin: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(resolve)) };
}

if (chromiumPresent("security headers test")) {
  let site, baseUrl, operatorKey, api, browser, framer;
  /** Every answer the server gave the browser: where, its status, what kind of request, its headers. */
  const answers = [];
  /** What the browser refused, per page watched. */
  const refusals = new Map();

  /** A new tab whose refusals and answers are recorded. */
  async function watchedPage() {
    const page = await browser.newPage();
    const refused = [];
    refusals.set(page, refused);
    page.on("console", (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) refused.push(`${page.url()}: ${message.text()}`);
    });
    page.on("response", (response) => {
      if (response.url().startsWith(baseUrl))
        answers.push({ url: response.url(), status: response.status(), kind: response.request().resourceType(), headers: response.headers() });
    });
    return page;
  }

  before(
    async () => {
      site = await startConsole({ tenant: "csp" });
      ({ baseUrl, operatorKey, api, browser } = site);
      // Runs before any script of the page (playwright injects it outside the page's policy).
      await browser.exposeBinding("reportPolicyViolation", ({ page }, violation) => refusals.get(page)?.push(`${page.url()}: ${violation}`));
      await browser.addInitScript(() => {
        document.addEventListener("securitypolicyviolation", (event) =>
          // @ts-expect-error the binding exposed above
          window.reportPolicyViolation(`${event.effectiveDirective} refused ${event.blockedURI || "inline"} (${event.sourceFile}:${event.lineNumber})`),
        );
      });
      framer = await startFramingSite({ console: `${baseUrl}/console`, docs: `${baseUrl}/docs` });
    },
    { timeout: 240_000 },
  );

  after(async () => {
    await site?.close();
    await framer?.close();
  });

  describe("the console and the reference under their policy", () => {
    it("signing in and every console page run without a refusal", TIMEOUT, async () => {
      const code = `CSP-${Date.now()}`;
      const created = await api("POST", "/v1/operations", {
        code,
        name: { en: "Policy spring" },
        type: "PUBLIC",
        startDate: "2098-01-01T00:00:00Z",
        endDate: "2098-12-31T00:00:00Z",
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const lines = [{ variantExternalId: "SKU-A", minQuantity: 2, maxQuantity: 10 }];
      assert.equal((await api("PUT", `/v1/operations/${created.body.id}/lines`, lines)).status, 200);

      const page = await watchedPage();
      await page.goto(`${baseUrl}/console`);
      // A refusal first: the API's problem shows in the form.
      await page.getByLabel("API key").fill("not-a-key");
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("alert").waitFor();
      await page.getByLabel("API key").fill(operatorKey);
      await page.getByLabel("Role").selectOption("OPERATOR");
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("heading", { name: "Operations" }).waitFor();
      for (const label of ["Quota rules", "Order check", "Accounts", "Events", "Webhooks", "Keys", "Operations"]) {
        await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: label, exact: true }).click();
        await page.getByRole("heading", { level: 1, name: label }).waitFor();
      }
      await page.getByRole("link", { name: code, exact: true }).click();
      await page.getByRole("heading", { name: code }).waitFor();
      await page.getByRole("grid").waitFor();
      for (const path of ["/console/quota-rules/new", "/console/quota-rules/simulator"]) {
        await page.goto(`${baseUrl}${path}`);
        await page
          .getByRole("button", { name: /Create|Evaluate/ })
          .first()
          .waitFor();
      }
      await page.close();
      assert.deepEqual(refusals.get(page), []);
    });

    it("the reference at /docs renders and runs an operation without a refusal", TIMEOUT, async () => {
      const page = await watchedPage();
      await page.goto(`${baseUrl}/docs`);
      const block = page.locator("#operations-Service-getHealth");
      await block.waitFor({ timeout: 30_000 });
      await page.locator("#guides-list li").first().waitFor({ timeout: 10_000 });
      await block.locator(".opblock-summary-control").click();
      const tryOut = block.locator(".try-out__btn:not(.cancel)");
      if (await tryOut.count()) await tryOut.click();
      await block.locator("button.execute").click();
      await block.locator(".live-responses-table .response .response-col_status").waitFor();
      await page.close();
      assert.deepEqual(refusals.get(page), []);
    });

    it("every answer the browser got carries nosniff, no framing and no referrer; pages carry a policy with no inline script", TIMEOUT, async () => {
      const seen = (test) => answers.filter(test).map((answer) => new URL(answer.url).pathname);
      // The pages, their scripts and styles, the reference's files, and the API's answers were all seen.
      for (const [what, test] of [
        ["a console page", (a) => a.kind === "document" && new URL(a.url).pathname.startsWith("/console")],
        ["a console script", (a) => a.kind === "script" && a.url.includes("/console/assets/")],
        ["a console style sheet", (a) => a.kind === "stylesheet" && a.url.includes("/console/assets/")],
        ["the reference page", (a) => a.kind === "document" && new URL(a.url).pathname === "/docs"],
        ["the reference's scripts", (a) => a.kind === "script" && a.url.includes("/docs/")],
        ["API answers", (a) => new URL(a.url).pathname.startsWith("/v1/") && a.kind === "fetch"],
        ["an API refusal", (a) => new URL(a.url).pathname.startsWith("/v1/") && a.status >= 400],
      ]) {
        assert.ok(seen(test).length > 0, `no ${what} among ${answers.length} answers`);
      }
      for (const { url, status, kind, headers } of answers) {
        const where = `${kind} ${status} ${url}`;
        assert.equal(headers["x-content-type-options"], "nosniff", where);
        assert.equal(headers["x-frame-options"], "DENY", where);
        assert.equal(headers["referrer-policy"], "no-referrer", where);
        const policy = Object.fromEntries(
          (headers["content-security-policy"] ?? "")
            .split(";")
            .map((directive) => directive.trim().split(/\s+/))
            .map(([name, ...values]) => [name, values]),
        );
        assert.deepEqual(policy["frame-ancestors"], ["'none'"], where);
        if (kind === "document") {
          assert.deepEqual(policy["script-src"], ["'self'"], `${where}: scripts of this origin only`);
          assert.deepEqual(policy["object-src"], ["'none'"], where);
        }
      }
    });
  });

  describe("a page on another origin", () => {
    it("cannot frame the console or the reference: the frames show the browser's error page, not the sign-in form", TIMEOUT, async () => {
      const page = await browser.newPage();
      const messages = [];
      page.on("console", (message) => messages.push(message.text()));
      await page.goto(`${framer.origin}/`, { waitUntil: "load" });
      // What the browser renders in a frame it lets load: the framing page's own one.
      await page.frameLocator("#own").getByRole("button", { name: "Sign in" }).waitFor();
      for (const id of ["console", "docs"]) {
        const frame = await (await page.locator(`#${id}`).elementHandle()).contentFrame();
        assert.equal(frame.url(), "chrome-error://chromewebdata/", `#${id} shows ${frame.url()}`);
        assert.equal(await page.frameLocator(`#${id}`).getByLabel("API key").count(), 0);
        assert.equal(await page.frameLocator(`#${id}`).locator("#reference").count(), 0);
      }
      assert.ok(
        messages.some((text) => /frame-ancestors 'none'/.test(text)),
        messages.join("\n"),
      );
      await page.close();
    });
  });
}
