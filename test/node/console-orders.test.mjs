// An Operation's Orders and Totals in the console, in headless Chromium as a person would: the orders
// list with its filters in the address (a reload keeps them), sort, CSV and Excel, an order cancelled with a
// reason from the keyboard alone, the Totals page's figures, refusals in words, lines against their
// recommended quantity, the accounts that have not ordered and the chart per day; the lines grid's
// read-only Ordered column. Needs Debian's chromium at /usr/bin/chromium (driven by playwright-core).
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import ExcelJS from "exceljs";
import { after, before, describe, it } from "node:test";
import { checkPage, chromiumPresent, createOperationWithLines, screenshot, startConsole } from "./support/browser.mjs";

const TIMEOUT = { timeout: 180_000 };

if (chromiumPresent("console orders test")) {
  let server, page, api, baseUrl, operationId, ruleId;
  const code = `ORD-${Date.now()}`;
  const ordersUrl = () => `${baseUrl}/console/operations/${operationId}/orders`;
  const order = (accountId, variantExternalId, quantity, unitPrice) => ({
    operationId,
    accountId,
    lines: [{ variantExternalId, quantity, unitPrice, supplierId: "SUP-1" }],
  });
  const rows = () => page.getByRole("table", { name: `Orders of ${code}` }).locator("tbody tr");

  before(
    async () => {
      server = await startConsole({ tenant: "orders" });
      ({ api, baseUrl } = server);
      const ok = async (call, status = 200) => {
        const answer = await call;
        assert.equal(answer.status, status, JSON.stringify(answer.body));
        return answer.body;
      };
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
      assert.equal(await page.evaluate(() => document.activeElement?.textContent), "Cancel order", "the focus is back on the button");

      await page.keyboard.press("Enter");
      await dialog.waitFor();
      assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("type")), "text", "the focus is in the reason");
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
      // Typing on Ordered opens no editor and changes nothing; a paste over Min and Ordered writes Min only.
      await grid.focus();
      await page.keyboard.press("End");
      await page.keyboard.type("9");
      assert.equal(await grid.locator("input").count(), 0);
      assert.equal(await ordered.innerText(), "0");
      await page.keyboard.press("Home");
      for (let i = 0; i < 2; i++) await page.keyboard.press("ArrowRight");
      await grid.evaluate((element) => {
        const data = new DataTransfer();
        data.setData("text/plain", "2\t9\t\t1\t77");
        element.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
      });
      await page.getByRole("status").filter({ hasText: "1 row pasted." }).waitFor();
      assert.equal(await cells.nth(2).innerText(), "2");
      assert.equal(await ordered.innerText(), "0", "the pasted 77 is not written");
      assert.match(await page.locator(".grid-tools").innerText(), /1 unsaved cell\b/);
      await page.getByRole("button", { name: "Discard" }).click();
    });
  });
}
