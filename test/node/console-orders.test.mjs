// An Operation's Orders and Totals in the console, in headless Chromium as a person would: the orders
// list with its filters in the address (a reload keeps them), sort, CSV and Excel, an order cancelled with a
// reason from the keyboard alone, the Totals page's figures, refusals in words, lines against their
// recommended quantity, the accounts that have not ordered and the chart per day; the lines grid's
// read-only Ordered column. Pools and caps: a pool set in the lines grid while the Operation is ACTIVE
// (the rest read-only) and read with what is left beside Ordered, a pool the server refuses below what
// was ordered meanwhile (in the grid's words, on its row), a line's accounts' own caps edited and
// removed, a plan of caps previewed then saved from the keyboard alone, and the order check naming an
// allocation shortfall once the account is named.
// Needs Debian's chromium at /usr/bin/chromium (driven by playwright-core).
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import ExcelJS from "exceljs";
import { after, before, describe, it } from "node:test";
import {
  assertAccessible,
  checkGridPage,
  checkPage,
  chromiumPresent,
  createOperationWithLines,
  screenshot,
  startConsole,
  settled,
} from "./support/browser.mjs";

const TIMEOUT = { timeout: 180_000 };

if (chromiumPresent("console orders test")) {
  let server, page, api, baseUrl, operationId, ruleId, poolsId;
  const code = `ORD-${Date.now()}`;
  const ordersUrl = () => `${baseUrl}/console/operations/${operationId}/orders`;
  const order = (accountId, variantExternalId, quantity, unitPrice) => ({
    operationId,
    accountId,
    lines: [{ variantExternalId, quantity, unitPrice, supplierId: "SUP-1" }],
  });
  const rows = () => page.getByRole("table", { name: `Orders of ${code}` }).locator("tbody tr");
  const ok = async (call, status = 200) => {
    const answer = await call;
    assert.equal(answer.status, status, JSON.stringify(answer.body));
    return answer.body;
  };

  // Pools and caps: an ACTIVE Operation of their own, its lines as the grid sorts them (by variant), and the columns it shows.
  const poolsCode = `${code}-POOL`;
  const POOL_ROWS = { CAP: 0, "JACKET-L": 1, "JACKET-M": 2 };
  const COLUMNS = ["Variant", "Name", "Min", "Max", "Recommended", "Pack", "Pool", "Per account", "Ordered"];
  const poolsGrid = () => page.getByRole("grid", { name: `Lines of ${poolsCode}` });
  const cell = (variant, column) => page.locator(`#cell-${POOL_ROWS[variant]}-${COLUMNS.indexOf(column)}`);
  const status = (text) => page.getByRole("status").filter({ hasText: text });
  /** What each of a table's rows shows, cell by cell. */
  const cellTexts = (rows) => rows.evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.innerText.trim())));
  const place = (id, accountId, variantExternalId, quantity) =>
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
  const lineOf = async (variant) => (await ok(api("GET", `/v1/operations/${poolsId}/lines?variantIds=${variant}`))).items[0];
  const capsOf = async (variant) =>
    (await ok(api("GET", `/v1/operations/${poolsId}/allocations/accounts?variantIds=${variant}`))).items.map((cap) => [
      cap.accountId,
      cap.maxQuantity,
      cap.orderedQuantity,
    ]);

  before(
    async () => {
      server = await startConsole({ tenant: "orders" });
      ({ api, baseUrl } = server);
      await ok(api("PUT", "/v1/settings/display", { currency: "EUR" }));
      await ok(
        api("PUT", "/v1/accounts", [
          { accountId: "A-100", name: "Maison Dupont" },
          { accountId: "A-200", name: "Chez Martin" },
          { accountId: "A-300", name: "Epicerie Lune" },
        ]),
      );
      const created = await ok(
        api("POST", "/v1/operations", {
          code,
          name: { en: "Orders spring" },
          type: "PRIVATE",
          startDate: "2020-01-01T00:00:00Z",
          endDate: "2099-12-31T00:00:00Z",
        }),
        201,
      );
      operationId = created.id;
      await ok(
        api("PUT", `/v1/operations/${operationId}/lines`, [
          { variantExternalId: "SKU-1", minQuantity: 0, maxQuantity: 100, recommendedQuantity: 10 },
          { variantExternalId: "SKU-2", minQuantity: 0, maxQuantity: 100, recommendedQuantity: 5 },
          { variantExternalId: "SKU-3", minQuantity: 0, maxQuantity: 100 },
        ]),
      );
      await ok(api("PUT", `/v1/operations/${operationId}/accounts`, ["A-100", "A-200", "A-300"]));
      await ok(api("POST", `/v1/operations/${operationId}/status`, { status: "ACTIVE" }));
      // A-300's minimum with SUP-1 is €1,000.00: its €300.00 order is refused.
      ruleId = (await ok(api("POST", "/v1/buying-policies/quotas/rules", { accountId: "A-300", supplierId: "SUP-1", minimum: 100000 }), 201)).id;
      await ok(api("POST", "/v1/orders", order("A-100", "SKU-1", 4, 1000)), 201);
      await ok(api("POST", "/v1/orders", order("A-100", "SKU-2", 6, 500)), 201);
      await ok(api("POST", "/v1/orders", order("A-200", "SKU-1", 3, 2000)), 201);
      await ok(api("POST", "/v1/orders", order("A-300", "SKU-1", 3, 10000)), 422);
      // Last season: Maison Dupont took three jackets for each one Chez Martin took.
      const earlier = await activeOperation(`${code}-OLD`, [{ variantExternalId: "JACKET-M", minQuantity: 0, maxQuantity: 100 }], ["A-100", "A-200"]);
      await place(earlier, "A-100", "JACKET-M", 30);
      await place(earlier, "A-200", "JACKET-M", 10);
      poolsId = await activeOperation(
        poolsCode,
        [
          { variantExternalId: "JACKET-M", variantName: { en: "Jacket M" }, minQuantity: 0, maxQuantity: 500 },
          { variantExternalId: "JACKET-L", variantName: { en: "Jacket L" }, minQuantity: 0, maxQuantity: 500 },
          { variantExternalId: "CAP", variantName: { en: "Cap" }, minQuantity: 0, maxQuantity: 60, quantityIncrement: 6 },
        ],
        ["A-100", "A-200", "A-300"],
      );
      await place(poolsId, "A-100", "JACKET-M", 8);
      page = await server.browser.newPage();
      await server.signIn(page, server.operatorKey, "OPERATOR");
    },
    { timeout: 240_000 },
  );

  after(async () => {
    await server?.close();
  });

  describe("an Operation's orders", () => {
    it("lists them from the Operation's page, accounts by name and amounts in euros; its filters stay in the address over a reload", TIMEOUT, async () => {
      await page.goto(`${baseUrl}/console/operations/${operationId}`);
      await page.getByRole("navigation", { name: "Operation views" }).getByRole("link", { name: "Orders", exact: true }).click();
      await page.getByRole("heading", { name: "Orders", level: 2 }).waitFor();
      // The names are read for the rows once they are in.
      await rows().getByText("Chez Martin, A-200").waitFor();
      assert.equal(await rows().count(), 3);
      const text = await page.getByRole("table", { name: `Orders of ${code}` }).innerText();
      assert.match(text, /Maison Dupont, A-100/);
      assert.match(text, /Chez Martin, A-200/);
      assert.match(text, /€60\.00/);

      await page.getByLabel("Status").selectOption("PLACED");
      await page.getByLabel("Account id").fill("A-100");
      await page.getByLabel("Sort").selectOption({ label: "Highest amount" });
      await page.waitForURL(/account=A-100/);
      await page.waitForFunction(() => document.querySelectorAll("table.list tbody tr").length === 2);
      assert.match(page.url(), /status=PLACED/);
      assert.match(page.url(), /sort=-amount/);
      await page.reload();
      await rows().first().waitFor();
      assert.equal(await page.getByLabel("Status").inputValue(), "PLACED");
      assert.equal(await page.getByLabel("Account id").inputValue(), "A-100");
      assert.equal(await page.getByLabel("Sort").inputValue(), "-amount");
      await page.waitForFunction(() => document.querySelectorAll("table.list tbody tr").length === 2);
      assert.match(await rows().first().innerText(), /€40\.00/, "the highest amount first");
      assert.match(await rows().nth(1).innerText(), /€30\.00/);
    });

    it("exports the orders the filters show as CSV and as an Excel sheet", TIMEOUT, async () => {
      await page.goto(`${ordersUrl()}?status=PLACED&account=A-100`);
      await rows().getByRole("button", { name: "Cancel order" }).first().waitFor();
      const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export CSV" }).click()]);
      const [header, ...lines] = (await readFile(await download.path(), "utf8")).trimEnd().split(/\r?\n/);
      assert.match(header, /^id,placedAt,accountId,status,amount/);
      assert.equal(lines.length, 2);
      assert.ok(
        lines.every((line) => line.includes(",A-100,PLACED,")),
        lines.join("\n"),
      );
      assert.deepEqual(lines.map((line) => line.split(",")[4]).sort(), ["3000", "4000"]);

      // The same rows as an Excel sheet: the CSV's columns, amounts and line counts as numbers.
      const [excel] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export Excel" }).click()]);
      assert.match(excel.suggestedFilename(), /^orders-.+\.xlsx$/);
      await page.getByRole("status").filter({ hasText: "Exported 2 rows to orders-" }).waitFor();
      const book = new ExcelJS.Workbook();
      await book.xlsx.readFile(await excel.path());
      const sheet = book.worksheets[0];
      assert.deepEqual(sheet.getRow(1).values.slice(1), header.split(","));
      assert.equal(sheet.rowCount, 3);
      const amounts = [2, 3].map((row) => sheet.getRow(row).getCell(5));
      assert.deepEqual(
        amounts.map((cell) => cell.type),
        [ExcelJS.ValueType.Number, ExcelJS.ValueType.Number],
      );
      assert.deepEqual(amounts.map((cell) => cell.value).sort(), [3000, 4000]);
    });

    it("cancels an order with a reason, from the keyboard alone (Escape first keeps it)", TIMEOUT, async () => {
      await page.goto(`${ordersUrl()}?account=A-200`);
      const cancel = rows().first().getByRole("button", { name: "Cancel order" });
      await cancel.focus();
      await page.keyboard.press("Enter");
      const dialog = page.getByRole("dialog", { name: "Cancel the order of Chez Martin, A-200?" });
      await dialog.waitFor();
      await page.keyboard.press("Escape");
      await dialog.waitFor({ state: "detached" });
      assert.equal(await settled(page, () => document.activeElement?.textContent, "Cancel order"), "Cancel order", "the focus is back on the button");

      await page.keyboard.press("Enter");
      await dialog.waitFor();
      assert.equal(await settled(page, () => document.activeElement?.getAttribute("type"), "text"), "text", "the focus is in the reason");
      await page.keyboard.type("Customer called to cancel");
      await screenshot(page, "orders-cancel-dialog");
      await page.keyboard.press("Enter");
      await page.getByRole("status").filter({ hasText: "Cancelled the order of Chez Martin, A-200 placed" }).waitFor();
      await dialog.waitFor({ state: "detached" });
      const row = rows().first();
      await row.getByText("CANCELLED").waitFor();
      assert.match(await row.innerText(), /Customer called to cancel/);
      assert.equal(await row.getByRole("button", { name: "Cancel order" }).count(), 0, "a cancelled order has no Cancel order");
      const stored = await api("GET", `/v1/operations/${operationId}/orders?accountIds=A-200`);
      assert.equal(stored.body.items[0].status, "CANCELLED");
      assert.equal(stored.body.items[0].cancelReason, "Customer called to cancel");
      await checkPage(page, "orders");
    });
  });

  describe("an Operation's totals", () => {
    it(
      "shows its figures in words, its refusals in words, the lines below their recommendation first, who has not ordered, and the chart",
      TIMEOUT,
      async () => {
        await page.goto(`${baseUrl}/console/operations/${operationId}`);
        await page.getByRole("navigation", { name: "Operation views" }).getByRole("link", { name: "Totals", exact: true }).click();
        const figures = page.getByRole("definition");
        await figures.first().waitFor();
        const figure = async (label) =>
          page
            .locator(".figures div", { has: page.getByRole("term").filter({ hasText: new RegExp(`^${label}$`) }) })
            .locator("dd")
            .innerText();
        assert.equal(await figure("Orders"), "2 orders");
        assert.equal(await figure("Amount"), "€70.00");
        assert.equal(await figure("Accounts that ordered"), "1 account");
        assert.equal(await figure("Cancelled"), "1 order");
        assert.equal(await figure("Refused"), "1 below a minimum");
        assert.equal(await figure("Below recommended"), "1 line");

        const refusals = page.getByRole("region", { name: "Refusals" });
        const refusal = refusals.getByRole("listitem").first();
        await refusal.getByRole("link", { name: "account Epicerie Lune, A-300 · supplier SUP-1 · every store" }).waitFor();
        assert.match(
          await refusal.innerText(),
          /Epicerie Lune, A-300 ordered €300\.00 from supplier SUP-1: €700\.00 short of the €1,000\.00 minimum of the rule/,
        );
        assert.equal(await refusal.getByRole("link").getAttribute("href"), `/console/quota-rules/${ruleId}`);

        const lines = page.getByRole("table", { name: "Ordered and recommended, per line" });
        await lines.locator("tbody tr").first().waitFor();
        assert.match(await lines.locator("tbody tr").first().innerText(), /SKU-1\s+4\s+10[\s\S]*6 short/, "SKU-1, 4 of 10 after the cancellation, first");
        assert.match(await lines.innerText(), /SKU-2\s+6\s+5[\s\S]*reached/);

        const notOrdered = page.getByRole("table", { name: "Accounts that have not ordered" });
        await notOrdered.getByText("Epicerie Lune, A-300").waitFor();
        assert.match(await notOrdered.innerText(), /Chez Martin, A-200/, "its only order was cancelled");
        assert.doesNotMatch(await notOrdered.innerText(), /A-100/);

        const chart = page.getByRole("img", { name: /^Orders and refusals per day from / });
        await chart.waitFor();
        assert.match(await chart.getAttribute("aria-label"), /3 orders, 1 refusal/, "placed that day, cancelled since or not");
        assert.equal(await chart.locator("rect.orders").count(), 30);
        await checkPage(page, "totals");
      },
    );
  });

  describe("the lines grid", () => {
    it("shows Ordered: what the orders hold of each line", TIMEOUT, async () => {
      await page.goto(`${baseUrl}/console/operations/${operationId}`);
      const grid = page.getByRole("grid", { name: `Lines of ${code}` });
      await grid.getByRole("columnheader", { name: "Ordered" }).waitFor();
      const cells = (variant) => grid.getByRole("row").filter({ hasText: variant }).getByRole("gridcell");
      assert.equal(await cells("SKU-1").last().innerText(), "4", "4 placed, the 3 cancelled left");
      assert.equal(await cells("SKU-2").last().innerText(), "6");
      assert.equal(await cells("SKU-3").last().innerText(), "0");
      await screenshot(page, "lines-ordered");
    });

    it("keeps Ordered read-only while the other cells edit (a DRAFT Operation)", TIMEOUT, async () => {
      const draftId = await createOperationWithLines(api, {
        code: `${code}-D`,
        name: "Orders draft",
        lines: [{ variantExternalId: "SKU-9", minQuantity: 1, maxQuantity: 9 }],
      });
      await page.goto(`${baseUrl}/console/operations/${draftId}`);
      const grid = page.getByRole("grid", { name: `Lines of ${code}-D` });
      const cells = grid.getByRole("row").filter({ hasText: "SKU-9" }).getByRole("gridcell");
      await cells.first().waitFor();
      const ordered = cells.last();
      assert.equal(await ordered.innerText(), "0");
      assert.equal(await ordered.getAttribute("aria-readonly"), "true");
      assert.equal(await cells.nth(2).getAttribute("aria-readonly"), null, "Min edits");
      // Typing on Ordered opens no editor and changes nothing; a paste over Min to Ordered writes Min only (Pool and Per account pasted empty, as they are).
      await grid.focus();
      await page.keyboard.press("End");
      await page.keyboard.type("9");
      assert.equal(await grid.locator("input").count(), 0);
      assert.equal(await ordered.innerText(), "0");
      await page.keyboard.press("Home");
      for (let i = 0; i < 2; i++) await page.keyboard.press("ArrowRight");
      await grid.evaluate((element) => {
        const data = new DataTransfer();
        data.setData("text/plain", "2\t9\t\t1\t\t\t77");
        element.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
      });
      await page.getByRole("status").filter({ hasText: "1 row pasted." }).waitFor();
      assert.equal(await cells.nth(2).innerText(), "2");
      assert.equal(await ordered.innerText(), "0", "the pasted 77 is not written");
      assert.match(await page.locator(".grid-tools").innerText(), /1 unsaved cell\b/);
      await page.getByRole("button", { name: "Discard" }).click();
    });
  });

  describe("the lines grid of an ACTIVE Operation", () => {
    it("sets a pool while the rest stays read-only, saved with If-Match, and reads what is left beside Ordered", TIMEOUT, async () => {
      await page.goto(`${baseUrl}/console/operations/${poolsId}`);
      await cell("JACKET-M", "Ordered").waitFor();
      const headers = await poolsGrid().getByRole("columnheader").allInnerTexts();
      assert.deepEqual(headers.slice(-3), ["Pool", "Per account", "Ordered"], "Ordered beside the pool and the cap it is held to");
      for (const name of ["Pool", "Per account", "Ordered"]) assert.equal(await poolsGrid().getByRole("columnheader", { name, exact: true }).count(), 1);
      assert.equal(await cell("JACKET-M", "Min").getAttribute("aria-readonly"), "true");
      assert.equal(await cell("JACKET-M", "Ordered").getAttribute("aria-readonly"), "true");
      assert.equal(await cell("JACKET-M", "Pool").getAttribute("aria-readonly"), null);
      assert.equal(await cell("JACKET-M", "Ordered").innerText(), "8");
      const version = (await ok(api("GET", `/v1/operations/${poolsId}`))).version;

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
      assert.equal((await ok(api("GET", `/v1/operations/${poolsId}`))).version, version + 1, "one version, checked against the page's");
      await checkGridPage(page, "allocation-lines");
    });

    it("refuses a pool below what was ordered meanwhile: the server's 409 on its row, in the grid's words, nothing saved", TIMEOUT, async () => {
      // Chez Martin orders 50 after the page read the lines, while its live connection is down (up, the
      // page would take the order in): the grid still shows 0 ordered.
      let liveDown = true;
      await page.routeWebSocket(/\/live\?/, (socket) => (liveDown ? socket.close({ code: 1011, reason: "kept down by the test" }) : socket.connectToServer()));
      await page.reload();
      await page.locator(".live-state", { hasText: "Reconnecting…" }).waitFor();
      await place(poolsId, "A-200", "JACKET-L", 50);
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
      // Under the grid, the active cell's reason (the save's sentence names its row too).
      await page.getByText("Server: Pool 20 is below the 50 already ordered.", { exact: true }).waitFor();
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
      liveDown = false;
      await page.locator(".live-state", { hasText: /^Live$/ }).waitFor({ timeout: 60_000 });
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
      await rows.filter({ hasText: "Epicerie Lune, A-300" }).waitFor();
      assert.deepEqual(
        (await cellTexts(rows)).map(([account, , ordered]) => [account, ordered]),
        [
          ["Maison Dupont, A-100", "8"],
          ["Epicerie Lune, A-300", "0"],
        ],
      );
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
      assert.equal(
        await settled(page, () => document.activeElement?.closest("label")?.textContent, "Equal shares"),
        "Equal shares",
        "the focus in the dialog, on its method",
      );
      await page.keyboard.press("ArrowDown"); // In proportion to what each ordered in an earlier Operation
      await page.keyboard.press("Tab"); // Among: the accounts of the earlier Operation (the attached ones are equal shares only)
      await page.keyboard.press("Tab"); // Earlier Operation's code
      await page.keyboard.type(`${code}-OLD`);
      await dialog.getByText(`${code}-OLD: ${code}-OLD`).waitFor();
      await page.keyboard.press("Enter");
      const preview = dialog.getByRole("heading", { name: "2 caps for 1 line and 2 accounts" });
      await preview.waitFor();
      assert.equal(
        await settled(page, () => document.activeElement?.id, "plan-preview-heading"),
        "plan-preview-heading",
        "the focus on what the plan proposes",
      );
      const table = dialog.getByRole("table", { name: "Planned caps" });
      await table.getByText("Chez Martin, A-200").waitFor();
      // 2,000 less the 8 Maison Dupont ordered, shared 3 to 1; each keeps what it ordered.
      assert.deepEqual(await cellTexts(table.locator("tbody tr")), [
        ["JACKET-M", "Maison Dupont, A-100", "1,502", "40", "8"],
        ["JACKET-M", "Chez Martin, A-200", "498", "none of its own", "0"],
      ]);
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
      assert.equal(await settled(page, () => document.activeElement?.textContent, "Plan allocation"), "Plan allocation", "the focus back on the button");
    });
  });

  describe("the order check", () => {
    it("names an allocation shortfall in words once the account is named, its caps counting", TIMEOUT, async () => {
      await page.getByRole("link", { name: "Order check" }).click();
      await page.getByRole("combobox", { name: /^Operation/ }).selectOption(poolsId);
      await page.getByLabel("Order lines").fill("JACKET-M\t499\nCAP\t12");
      await page.getByRole("button", { name: "Compare" }).click();
      // The pools only: 1,992 left fits 499.
      await page.getByRole("region", { name: "The order fits the Operation" }).waitFor();

      await page.getByLabel("Account", { exact: true }).fill("A-200");
      await page.getByText("Chez Martin", { exact: true }).waitFor();
      await page.getByRole("button", { name: "Compare" }).click();
      const report = page.getByRole("region", { name: "1 discrepancy" });
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
