// The console's history (part 3), in headless Chromium as a person would: an Operation's changes
// newest first, one entry per change (a save of 203 lines is one, opened to its records), who by
// their key's name, when, why, filtered by variant; a version compared with the current one in the
// virtualized grid, its names whole; `Revert to this version` after a dialog showing the dry run's
// counts and taking a reason, read back as "Reverted to version N"; the tenant's Changes page, named
// without internal ids, filtered, exported as CSV, and a deleted rule restored from it. The view
// (filters, the compared version) lives in the address.
// Needs Debian's chromium at /usr/bin/chromium (driven by playwright-core, which never downloads one).
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import { checkPage, chromiumPresent, startConsole } from "./support/browser.mjs";

const TIMEOUT = { timeout: 180_000 };
const LONG_NAME = "Organic cotton hoodie, navy blue, size large, with a full zip and two front pockets";

if (chromiumPresent("console history test")) {
  let server, page, api, baseUrl, operationId, versionBefore, ruleId;
  const code = `HIST-${Date.now()}`;
  const status = (text) => page.getByRole("status").filter({ hasText: text });
  const changes = () => page.getByRole("table", { name: "Changes" });
  const rowsText = async () => changes().locator(":scope > tbody > tr").allInnerTexts();

  before(
    async () => {
      server = await startConsole({ tenant: "history" });
      ({ api, baseUrl } = server);
      const created = await api("POST", "/v1/operations", {
        code,
        name: { en: "History spring" },
        type: "PUBLIC",
        startDate: "2098-01-01T00:00:00Z",
        endDate: "2098-12-31T00:00:00Z",
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      operationId = created.body.id;
      // One save of 203 lines (a paste of 200 and three more): one change, one entry of the history.
      const lines = ["SKU-1", "SKU-2", "SKU-3"].map((variantExternalId) => ({ variantExternalId, minQuantity: 0, maxQuantity: 50 }));
      const pasted = Array.from({ length: 200 }, (_, i) => ({ variantExternalId: `SKU-P${String(i).padStart(3, "0")}`, minQuantity: 0, maxQuantity: 9 }));
      assert.equal((await api("PUT", `/v1/operations/${operationId}/lines`, [...lines, ...pasted])).status, 200);
      versionBefore = (await api("GET", `/v1/operations/${operationId}`)).body.version;
      const cut = await api("PUT", `/v1/operations/${operationId}/lines`, [{ variantExternalId: "SKU-2", maxQuantity: 5, variantName: { en: LONG_NAME } }], {
        headers: { "svc-change-reason": "Supplier allocation cut" },
      });
      assert.equal(cut.status, 200, JSON.stringify(cut.body));
      const rule = await api("POST", "/v1/buying-policies/quotas/rules", { accountId: "ACC-H1", supplierId: "SUP-H1", minimum: 1500 });
      ruleId = rule.body.id;
      assert.equal((await api("DELETE", `/v1/buying-policies/quotas/rules/${ruleId}`)).status, 204);
      page = await server.browser.newPage();
      await server.signIn(page, server.operatorKey, "OPERATOR");
    },
    { timeout: 240_000 },
  );

  after(async () => {
    await server?.close();
  });

  describe("history in the console", () => {
    it("shows an Operation's changes newest first, one entry per change: what changed, who, when and why; filtered by variant", TIMEOUT, async () => {
      await page.goto(`${baseUrl}/console/operations/${operationId}`);
      await page.getByRole("navigation", { name: "Operation views" }).getByRole("link", { name: "History" }).click();
      await page.getByRole("heading", { name: "History", level: 2 }).waitFor();
      await changes().getByText("Max 50 → 5").waitFor();
      await changes().getByText("an unnamed OPERATOR key of").first().waitFor();
      const rows = await rowsText();
      assert.match(rows[0], /Changed: Line SKU-2/);
      assert.match(rows[0], /Max 50 → 5/);
      assert.match(rows[0], /Supplier allocation cut/);
      assert.match(rows[0], /\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/, "when");
      assert.doesNotMatch(rows.join("\n"), /key:key_|key_0|sk3_|…/, "who, by the key's name (an unnamed one said so), never its id or first characters");
      // The save of 203 lines is one entry, and version 1 (the Operation's creation) stays on the first page.
      assert.equal(rows.length, 3, rows.join("\n"));
      assert.match(rows[1], /203 lines added/);
      assert.match(rows[2], /Created: The Operation/);
      await changes().getByRole("button", { name: "Show the 203 records" }).click();
      assert.equal(await changes().getByRole("button", { name: "Hide the 203 records" }).getAttribute("aria-expanded"), "true");
      const records = changes().getByRole("table", { name: /^Records of the change of / });
      await records.getByText("Created: Line SKU-P199").waitFor();
      assert.equal(await records.locator("tbody tr").count(), 100, "the first hundred records, the rest on request");
      await changes()
        .getByRole("button", { name: /^Show more \(103 records not shown\)/ })
        .click();
      assert.equal(await records.locator("tbody tr").count(), 203);
      await checkPage(page, "operation-history-opened");
      await changes().getByRole("button", { name: "Hide the 203 records" }).click();

      await page.getByLabel("Variant").fill("SKU-2");
      await page.waitForFunction(() => document.querySelectorAll('table[aria-label="Changes"] > tbody > tr').length === 2);
      const filtered = await rowsText();
      assert.match(filtered[0], /Changed: Line SKU-2/);
      assert.match(filtered[1], /Created: Line SKU-2/);
      assert.match(new URL(page.url()).search, /variant=SKU-2/, "the filter is in the address");
      await checkPage(page, "operation-history");
    });

    it("compares a version with the current one in the grid, and reverts to it after a dialog with the dry run's counts", TIMEOUT, async () => {
      await page.getByRole("button", { name: `Compare version ${versionBefore} with the current one` }).click();
      const region = page.getByRole("region", { name: new RegExp(`^Version ${versionBefore} compared with the current one`) });
      await region.waitFor();
      const grid = region.getByRole("grid", { name: `Lines that differ between version ${versionBefore} and now` });
      await page.waitForFunction(() => document.querySelector(".diff-grid")?.getAttribute("aria-rowcount") === "2");
      // Names are read whole in the comparison (a long one here), however wide.
      const whole = await page.evaluate(() =>
        [...document.querySelectorAll(".diff-grid [role=gridcell]")].every((cell) => cell.scrollWidth <= cell.clientWidth),
      );
      assert.ok(whole, "no cell of the comparison is cut");
      assert.deepEqual(await grid.locator('[role="row"]').nth(1).locator('[role="gridcell"]').allInnerTexts(), [
        "SKU-2",
        "changed since",
        `— → ${LONG_NAME} (en)`,
        "",
        "50 → 5",
        "",
        "",
      ]);
      assert.match(new URL(page.url()).search, new RegExp(`compare=${versionBefore}`));
      await page.reload();
      await region.waitFor();
      assert.equal(await page.getByLabel("Variant").inputValue(), "SKU-2", "a reload reproduces the view");

      const puts = [];
      page.on("request", (request) => request.url().includes("/revert") && puts.push(new URL(request.url()).searchParams.get("dryRun")));
      await region.getByRole("button", { name: "Revert to this version" }).click();
      const dialog = page.getByRole("dialog", { name: `Revert ${code} to version ${versionBefore}?` });
      await dialog.waitFor();
      assert.match(await dialog.innerText(), /1 line set back or brought back/);
      assert.match(await dialog.innerText(), /0 lines added since, removed/);
      assert.deepEqual(puts, ["true"], "a dry run only");
      await checkPage(page, "revert-dialog");
      // The reason typed goes with the revert as svc-change-reason, and the history reads it back.
      await dialog.getByLabel("Reason").fill("Cut cancelled by the supplier");
      await dialog.getByRole("button", { name: "Revert", exact: true }).click();
      await status(`Reverted to version ${versionBefore}: it is now version`).waitFor();
      const [line] = (await api("GET", `/v1/operations/${operationId}/lines?variantIds=SKU-2`)).body.items;
      assert.equal(line.maxQuantity, 50);
      const latest = (await api("GET", `/v1/operations/${operationId}/history?limit=1`)).body.items[0];
      assert.equal(latest.reason, "Cut cancelled by the supplier");
      const first = changes().locator(":scope > tbody > tr").first();
      await first.getByText("Max 5 → 50").waitFor();
      await first.getByText(`Reverted to version ${versionBefore} (1 line changed)`).waitFor();
      await first.getByText("Cut cancelled by the supplier").waitFor();
      // The version compared is now the current one's twin: nothing is left to revert.
      await region.getByText(`Version ${versionBefore} and the current version hold the same: there is nothing to revert.`).waitFor();
      assert.equal(await region.getByRole("button", { name: "Revert to this version" }).count(), 0);

      // Back closes the comparison (the view before it), the filter stays.
      await page.getByRole("button", { name: "Close" }).click();
      await region.waitFor({ state: "detached" });
      await page.goBack();
      await region.waitFor();
      await page.goForward();
      await region.waitFor({ state: "detached" });
    });

    it("outside DRAFT says a revert needs a draft, and an ACCOUNT key has no History", TIMEOUT, async () => {
      assert.equal((await api("POST", `/v1/operations/${operationId}/status`, { status: "ACTIVE" })).status, 200);
      await page.goto(`${baseUrl}/console/operations/${operationId}/history?compare=${versionBefore}`);
      await page.getByText("Only a DRAFT Operation can be reverted").waitFor();
      assert.equal(await page.getByRole("button", { name: "Revert to this version" }).count(), 0);
      assert.equal((await api("POST", `/v1/operations/${operationId}/status`, { status: "DRAFT" })).status, 200);

      const accountPage = await server.browser.newPage();
      try {
        await server.signIn(accountPage, server.accountKey, "ACCOUNT");
        await accountPage.goto(`${baseUrl}/console/operations/${operationId}`);
        await accountPage.getByRole("heading", { name: code }).waitFor();
        assert.equal(await accountPage.getByRole("link", { name: "History" }).count(), 0);
      } finally {
        await accountPage.close();
      }
    });

    it("lists the tenant's changes, filtered, exported as CSV, and restores a deleted rule", TIMEOUT, async () => {
      await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Changes" }).click();
      await page.getByRole("heading", { name: "Changes", level: 1 }).waitFor();
      await page.getByLabel("Kind").selectOption("rule");
      await page.waitForFunction(() => document.querySelectorAll('table[aria-label="Changes"] tbody tr').length === 2);
      const rows = await rowsText();
      assert.match(rows[0], /Deleted account ACC-H1 · supplier SUP-H1 · every store/, "a rule named by its scope");
      assert.match(rows[1], /Created/);
      assert.match(new URL(page.url()).search, /kind=rule/);
      await checkPage(page, "changes");
      // At 1440 px the list fits its box: Restore is in view, not behind a sideways scroll.
      assert.equal(
        await page.evaluate(() => {
          const wrap = document.querySelector('table[aria-label="Changes"]').parentElement;
          return wrap.scrollWidth - wrap.clientWidth;
        }),
        0,
        "the Changes list scrolls sideways at 1440 px",
      );

      const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export CSV" }).click()]);
      const apiCsv = await (
        await fetch(`${baseUrl}/v1/history?resourceType=rule&sort=-at`, {
          headers: { accept: "text/csv", "svc-client": "OPERATOR", "svc-api-key": server.operatorKey },
        })
      ).text();
      assert.equal(await readFile(await download.path(), "utf8"), apiCsv);
      assert.match(apiCsv, /rule,qr_/);

      await page.getByRole("button", { name: "Restore the rule of ACC-H1 / SUP-H1 / any" }).click();
      await status("Rule restored").waitFor();
      const restored = await api("GET", `/v1/buying-policies/quotas/rules/${ruleId}`);
      assert.equal(restored.status, 200);
      assert.equal(restored.body.minimum, 1500);
      // Restoring it again: the API's refusal, with its detail.
      await page.getByRole("button", { name: "Restore the rule of ACC-H1 / SUP-H1 / any" }).first().click();
      await page.getByRole("alert").filter({ hasText: "rule_exists" }).waitFor();

      // Keys by their names (an unnamed one said so), never by their ids or first characters.
      await page.getByLabel("Kind").selectOption("key");
      await page.waitForFunction(() => document.querySelectorAll('table[aria-label="Changes"] > tbody > tr').length === 2);
      await changes().getByText("Created an unnamed OPERATOR key of").waitFor();
      await changes().getByText("Created a key of u_console").waitFor();

      // Filtered by an Operation's code, not its id; an approval named by its Operation, not its id.
      const { version } = (await api("GET", `/v1/operations/${operationId}`)).body;
      assert.equal((await api("POST", `/v1/operations/${operationId}/approvals`, { decision: "APPROVE", version })).status, 201);
      await page.getByLabel("Kind").selectOption("");
      await page.getByLabel("Operation code").fill(code);
      await changes().getByText("Max 5 → 50").waitFor();
      await changes().getByText(`Created an approval of ${code}`).waitFor();
      // Every record is of that Operation, each named by its code (once the codes are read).
      await page.waitForFunction((code) => {
        const rows = [...document.querySelectorAll('table[aria-label="Changes"] tbody tr')];
        return rows.length > 4 && rows.every((row) => row.textContent.includes(code));
      }, code);
      assert.doesNotMatch((await rowsText()).join("\n"), /\b(apr|key|op|qr|chg)_[0-9A-Z]{6}|sk3_/, "no internal id and no key fragment on the page");
      // A field chosen by the name the list shows (Max), kept in the address by the API's name.
      await page.getByLabel("Field").selectOption({ label: "Max (maxQuantity)" });
      await page.waitForFunction(() => {
        const rows = [...document.querySelectorAll('table[aria-label="Changes"] tbody tr')];
        return rows.length > 0 && rows.every((row) => /Max \d/.test(row.textContent));
      });
      assert.match(new URL(page.url()).search, /field=maxQuantity/);
    });
  });
}
