// Pools and caps in the console, in headless Chromium as a person would: a pool set in the lines grid
// while the Operation is ACTIVE (the rest read-only) and read with what is left beside Ordered, a pool
// the server refuses below what was ordered meanwhile (in the grid's words, on its row), a line's
// accounts' own caps edited and removed, a plan of caps previewed then saved from the keyboard alone,
// and the order check naming an allocation shortfall once the account is named.
// Needs Debian's chromium at /usr/bin/chromium (driven by playwright-core).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { assertAccessible, checkGridPage, checkPage, chromiumPresent, screenshot, startConsole } from "./support/browser.mjs";

const TIMEOUT = { timeout: 180_000 };

if (chromiumPresent("console allocation test")) {
  let server, page, api, baseUrl, operationId;
  const code = `ALLOC-${Date.now()}`;
  // The lines as the grid sorts them (by variant), and the columns it shows.
  const ROWS = { CAP: 0, "JACKET-L": 1, "JACKET-M": 2 };
  const COLUMNS = ["Variant", "Name", "Min", "Max", "Recommended", "Pack", "Pool", "Per account", "Ordered"];
  const grid = () => page.getByRole("grid", { name: `Lines of ${code}` });
  const cell = (variant, column) => page.locator(`#cell-${ROWS[variant]}-${COLUMNS.indexOf(column)}`);
  const status = (text) => page.getByRole("status").filter({ hasText: text });
  const ok = async (call, expected = 200) => {
    const answer = await call;
    assert.equal(answer.status, expected, JSON.stringify(answer.body));
    return answer.body;
  };
  const order = (id, accountId, variantExternalId, quantity) =>
    ok(api("POST", "/v1/orders", { operationId: id, accountId, lines: [{ variantExternalId, quantity, unitPrice: 100, supplierId: "SUP-1" }] }), 201);
  /** A PRIVATE Operation open now, with `lines` and `accounts` attached, ACTIVE: its id. */
  async function activeOperation(operationCode, lines, accounts) {
    const { id } = await ok(
      api("POST", "/v1/operations", {
        code: operationCode,
        name: { en: operationCode },
        type: "PRIVATE",
        startDate: "2020-01-01T00:00:00Z",
        endDate: "2099-12-31T00:00:00Z",
      }),
      201,
    );
    await ok(api("PUT", `/v1/operations/${id}/lines`, lines));
    await ok(api("PUT", `/v1/operations/${id}/accounts`, accounts));
    await ok(api("POST", `/v1/operations/${id}/status`, { status: "ACTIVE" }));
    return id;
  }
  const lineOf = async (variant) => (await ok(api("GET", `/v1/operations/${operationId}/lines?variantIds=${variant}`))).items[0];
  const capsOf = async (variant) =>
    (await ok(api("GET", `/v1/operations/${operationId}/allocations/accounts?variantIds=${variant}`))).items.map((cap) => [
      cap.accountId,
      cap.maxQuantity,
      cap.orderedQuantity,
    ]);

  before(
    async () => {
      server = await startConsole({ tenant: "allocation" });
      ({ api, baseUrl } = server);
      await ok(
        api("PUT", "/v1/accounts", [
          { accountId: "A-100", name: "Maison Dupont" },
          { accountId: "A-200", name: "Chez Martin" },
          { accountId: "A-300", name: "Epicerie Lune" },
        ]),
      );
      // Last season: Maison Dupont took three jackets for each one Chez Martin took.
      const earlier = await activeOperation(`${code}-OLD`, [{ variantExternalId: "JACKET-M", minQuantity: 0, maxQuantity: 100 }], ["A-100", "A-200"]);
      await order(earlier, "A-100", "JACKET-M", 30);
      await order(earlier, "A-200", "JACKET-M", 10);
      operationId = await activeOperation(
        code,
        [
          { variantExternalId: "JACKET-M", variantName: { en: "Jacket M" }, minQuantity: 0, maxQuantity: 500 },
          { variantExternalId: "JACKET-L", variantName: { en: "Jacket L" }, minQuantity: 0, maxQuantity: 500 },
          { variantExternalId: "CAP", variantName: { en: "Cap" }, minQuantity: 0, maxQuantity: 60, quantityIncrement: 6 },
        ],
        ["A-100", "A-200", "A-300"],
      );
      await order(operationId, "A-100", "JACKET-M", 8);
      page = await server.browser.newPage();
      await server.signIn(page, server.operatorKey, "OPERATOR");
    },
    { timeout: 240_000 },
  );

  after(async () => {
    await server?.close();
  });

  describe("the lines grid of an ACTIVE Operation", () => {
    it("sets a pool while the rest stays read-only, saved with If-Match, and reads what is left beside Ordered", TIMEOUT, async () => {
      await page.goto(`${baseUrl}/console/operations/${operationId}`);
      await cell("JACKET-M", "Ordered").waitFor();
      const headers = await grid().getByRole("columnheader").allInnerTexts();
      assert.deepEqual(headers.slice(-3), ["Pool", "Per account", "Ordered"], "Ordered beside the pool and the cap it is held to");
      for (const name of ["Pool", "Per account", "Ordered"]) assert.equal(await grid().getByRole("columnheader", { name, exact: true }).count(), 1);
      assert.equal(await cell("JACKET-M", "Min").getAttribute("aria-readonly"), "true");
      assert.equal(await cell("JACKET-M", "Ordered").getAttribute("aria-readonly"), "true");
      assert.equal(await cell("JACKET-M", "Pool").getAttribute("aria-readonly"), null);
      assert.equal(await cell("JACKET-M", "Ordered").innerText(), "8");
      const version = (await ok(api("GET", `/v1/operations/${operationId}`))).version;

      await cell("JACKET-M", "Pool").click();
      await page.keyboard.type("2000");
      await page.keyboard.press("Enter");
      await page.getByRole("button", { name: "Save", exact: true }).click();
      await status("Saved: 1 line given a new pool or cap.").waitFor();
      assert.equal(await cell("JACKET-M", "Pool").innerText(), "2,000 · 1,992 left");
      assert.equal(await cell("JACKET-M", "Ordered").innerText(), "8");
      assert.deepEqual(await lineOf("JACKET-M").then(({ poolQuantity, maxPerAccount, poolRemaining }) => ({ poolQuantity, maxPerAccount, poolRemaining })), {
        poolQuantity: 2000,
        maxPerAccount: null,
        poolRemaining: 1992,
      });
      assert.equal((await ok(api("GET", `/v1/operations/${operationId}`))).version, version + 1, "one version, checked against the page's");
      await checkGridPage(page, "allocation-lines");
    });

    it("refuses a pool below what was ordered meanwhile: the server's 409 on its row, in the grid's words, nothing saved", TIMEOUT, async () => {
      // Chez Martin orders 50 after the page read the lines: the grid still shows 0 ordered.
      await order(operationId, "A-200", "JACKET-L", 50);
      await cell("JACKET-L", "Pool").click();
      await page.keyboard.type("20");
      await page.keyboard.press("Enter");
      await cell("JACKET-M", "Per account").click();
      await page.keyboard.type("100");
      await page.keyboard.press("Enter");
      await page.getByRole("button", { name: "Save", exact: true }).click();
      await status("Not saved: the dry run found errors, marked on their rows; nothing was saved.").waitFor();
      const refused = cell("JACKET-L", "Variant");
      assert.equal(await refused.getAttribute("aria-invalid"), "true");
      assert.equal(await refused.getAttribute("title"), "Pool 20 is below the 50 already ordered.");
      await refused.click();
      await page.getByText("Server: Pool 20 is below the 50 already ordered.").waitFor();
      await screenshot(page, "allocation-below-ordered");
      assert.equal((await lineOf("JACKET-M")).maxPerAccount, null, "the whole save was refused");
      assert.equal((await lineOf("JACKET-L")).poolQuantity, null);

      // What the grid knows is checked as it is typed, in the same words.
      await cell("JACKET-M", "Pool").click();
      await page.keyboard.type("5");
      await page.keyboard.press("Enter");
      assert.equal(await cell("JACKET-M", "Pool").getAttribute("aria-invalid"), "true");
      assert.equal(await cell("JACKET-M", "Pool").getAttribute("title"), "Pool 5 is below the 8 already ordered.");
      await page.getByRole("button", { name: "Discard" }).click();
      await status("Discarded").first().waitFor();
      assert.equal(await cell("JACKET-M", "Pool").innerText(), "2,000 · 1,992 left");
    });
  });

  describe("a line's accounts and their caps", () => {
    it("lists, adds, edits and removes accounts' own caps with what each ordered, named; a cap below it refused in words", TIMEOUT, async () => {
      await cell("JACKET-M", "Pool").click();
      await page.getByRole("button", { name: "Account caps" }).click();
      const panel = page.getByRole("region", { name: "Account caps of JACKET-M" });
      await panel.getByText("No account has a cap of its own on JACKET-M.").waitFor();
      assert.match(await panel.innerText(), /Pool 2,000 · 1,992 left/);

      const add = async (accountId, name) => {
        await panel.getByLabel("Account id").fill(accountId);
        await panel.getByText(name, { exact: true }).waitFor();
        await panel.getByRole("button", { name: "Add account" }).click();
      };
      await add("A-100", "Maison Dupont");
      const capOfDupont = panel.getByRole("textbox", { name: "Cap of Maison Dupont, A-100" });
      await capOfDupont.fill("5");
      await panel.getByRole("button", { name: "Save caps" }).click();
      await panel.getByText("Cap 5 is below the 8 already ordered by Maison Dupont, A-100.").waitFor();
      assert.equal(await capOfDupont.getAttribute("aria-invalid"), "true");
      await capOfDupont.fill("40");
      await add("A-300", "Epicerie Lune");
      await panel.getByRole("textbox", { name: "Cap of Epicerie Lune, A-300" }).fill("12");
      await panel.getByRole("button", { name: "Save caps" }).click();
      await panel.getByRole("status").filter({ hasText: "Saved: 2 set, 0 removed." }).waitFor();
      assert.deepEqual(await capsOf("JACKET-M"), [
        ["A-100", 40, 8],
        ["A-300", 12, 0],
      ]);
      const rows = panel.getByRole("table", { name: "Account caps of JACKET-M" }).locator("tbody tr");
      await rows.filter({ hasText: "Maison Dupont, A-100" }).filter({ hasText: /\b8\b/ }).waitFor();
      await screenshot(page, "allocation-caps");

      await panel.getByRole("button", { name: "Remove the cap of Epicerie Lune, A-300" }).click();
      await panel.getByRole("button", { name: "Save caps" }).click();
      await panel.getByRole("status").filter({ hasText: "Saved: 0 set, 1 removed." }).waitFor();
      assert.deepEqual(await capsOf("JACKET-M"), [["A-100", 40, 8]]);
      await assertAccessible(page, "a line's caps");
      await panel.getByRole("button", { name: "Close" }).click();
    });
  });

  describe("Plan allocation", () => {
    it("previews the caps of a plan proportional to an earlier Operation, then saves them, from the keyboard alone", TIMEOUT, async () => {
      await page.getByRole("button", { name: "Plan allocation" }).focus();
      await page.keyboard.press("Enter");
      const dialog = page.getByRole("dialog", { name: "Plan allocation" });
      await dialog.waitFor();
      assert.equal(await page.evaluate(() => document.activeElement?.closest("label")?.textContent), "Equal shares", "the focus in the dialog, on its method");
      await page.keyboard.press("ArrowDown"); // In proportion to what each ordered in an earlier Operation
      await page.keyboard.press("Tab"); // Among: the accounts of the earlier Operation (the attached ones are equal shares only)
      await page.keyboard.press("Tab"); // Earlier Operation's code
      await page.keyboard.type(`${code}-OLD`);
      await dialog.getByText(`${code}-OLD: ${code}-OLD`).waitFor();
      await page.keyboard.press("Enter");
      const preview = dialog.getByRole("heading", { name: "2 caps for 1 line and 2 accounts" });
      await preview.waitFor();
      assert.equal(await page.evaluate(() => document.activeElement?.id), "plan-preview-heading", "the focus on what the plan proposes");
      const table = dialog.getByRole("table", { name: "Planned caps" });
      await table.getByText("Chez Martin, A-200").waitFor();
      // 2,000 less the 8 Maison Dupont ordered, shared 3 to 1; each keeps what it ordered.
      assert.deepEqual(
        await table.locator("tbody tr").evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll("td")].map((cell) => cell.innerText.trim()))),
        [
          ["JACKET-M", "Maison Dupont, A-100", "1,502", "40", "8"],
          ["JACKET-M", "Chez Martin, A-200", "498", "none of its own", "0"],
        ],
      );
      assert.deepEqual(await capsOf("JACKET-M"), [["A-100", 40, 8]], "nothing saved by the preview");
      await assertAccessible(page, "the plan's preview");
      await screenshot(page, "allocation-plan-preview");

      await page.keyboard.press("Tab"); // Change the plan
      await page.keyboard.press("Tab"); // Save 2 caps
      assert.equal(await page.evaluate(() => document.activeElement?.textContent), "Save 2 caps");
      await page.keyboard.press("Enter");
      await dialog.getByRole("status").filter({ hasText: "Saved: 2 caps set, 0 removed, 0 as they were." }).waitFor();
      assert.deepEqual(await capsOf("JACKET-M"), [
        ["A-100", 1502, 8],
        ["A-200", 498, 0],
      ]);
      assert.equal(await page.evaluate(() => document.activeElement?.textContent), "Close");
      await page.keyboard.press("Enter");
      await dialog.waitFor({ state: "detached" });
      assert.equal(await page.evaluate(() => document.activeElement?.textContent), "Plan allocation", "the focus back on the button");
    });
  });

  describe("the order check", () => {
    it("names an allocation shortfall in words once the account is named, its caps counting", TIMEOUT, async () => {
      await page.getByRole("link", { name: "Order check" }).click();
      await page.getByRole("combobox", { name: /^Operation/ }).selectOption(operationId);
      await page.getByLabel("Order lines").fill("JACKET-M\t499\nCAP\t12");
      await page.getByRole("button", { name: "Compare" }).click();
      // The pools only: 1,992 left fits 499.
      await page.getByRole("region", { name: "The order fits the Operation" }).waitFor();

      await page.getByLabel("Account", { exact: true }).fill("A-200");
      await page.getByText("Chez Martin", { exact: true }).waitFor();
      await page.getByRole("button", { name: "Compare" }).click();
      const report = page.getByRole("region", { name: "1 discrepancies" });
      await report.waitFor();
      const stat = await report.locator(".stat", { hasText: "More than is left" }).locator("dd").innerText();
      assert.equal(stat, "1");
      const row = report.getByRole("table", { name: "Discrepancies" }).locator("tbody tr");
      assert.equal(await row.count(), 1);
      assert.match(await row.innerText(), /JACKET-M\s+More than is left\s+499/);
      assert.match(await row.innerText(), /Only 1,992 left in the pool, 498 left to this account; at most 498 fits/);
      await checkPage(page, "order-check-allocation");
    });
  });
}
