// The rules grid's minimum in major units of the tenant's currency, and both grids readable on a phone
// (issue 38), in headless Chromium: the minimum shown, typed, pasted, filled, replaced, undone and
// reviewed in euros ("180.00") and sent as exact cents (1.15 → 115, never 114.99…), more decimals than
// the currency has refused on the cell; the CSV's unit said; at 390 px a line's variant code and a
// rule's scope are not cut, the first column stays in view while the grid scrolls sideways; axe light
// and dark at 1440 and 390 px. Needs Debian's chromium at /usr/bin/chromium.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { checkGridPage, chromiumPresent, screenshot, startConsole } from "./support/browser.mjs";

const TIMEOUT = { timeout: 180_000 };
const RULES = "/v1/buying-policies/quotas/rules";
const LONG_VARIANT = "SKU-BLUE-ORGANIC-COTTON-XL";
const LONG_ACCOUNT = "ACCOUNT-NORTHWEST-0001";
const LONG_SUPPLIER = "SUPPLIER-GREENFIELD-77";
// The rules grid's columns, by place: Account, Supplier, Store, Minimum, Enforcement.
const MINIMUM = 3;

if (chromiumPresent("console units test")) {
  let console_, page, api, baseUrl, operationId;

  const cell = (row, col) => page.locator(`#cell-${row}-${col}`);
  const cellText = async (row, col) => (await cell(row, col).textContent()).replace(" (unsaved)", "");
  const said = (text) => page.getByRole("status").filter({ hasText: text }).first().waitFor();
  const press = async (key, times = 1) => {
    for (let i = 0; i < times; i++) await page.keyboard.press(key);
  };
  const rulesGrid = () => page.getByRole("grid", { name: "Quota rules" });
  /** The row (its place in the grid) whose first cell holds `text`. */
  const rowOf = async (text) => {
    const id = await page.locator('[role="gridcell"][aria-colindex="1"]', { hasText: new RegExp(`^${text}( \\(unsaved\\))?$`) }).getAttribute("id");
    return Number(id.split("-")[1]);
  };
  const goTo = async (row, col) => {
    await rulesGrid().focus();
    await press("Control+Home");
    await press("Home");
    await press("ArrowDown", row);
    await press("ArrowRight", col);
  };
  const paste = (text) =>
    rulesGrid().evaluate((element, pasted) => {
      const data = new DataTransfer();
      data.setData("text/plain", pasted);
      element.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
    }, text);
  const minimumOf = async (accountId) => (await api("GET", `${RULES}?accountId=${accountId}`)).body.items[0]?.minimum;

  before(
    async () => {
      console_ = await startConsole({ tenant: "units" });
      ({ api, baseUrl } = console_);
      assert.equal((await api("PUT", "/v1/settings/display", { currency: "EUR" })).status, 200);
      const rules = [
        { accountId: "U-1", supplierId: "U-S", minimum: 18000, enforcement: "BLOCK" },
        { accountId: "U-2", supplierId: "U-S", minimum: 5, enforcement: "BLOCK" },
        { accountId: "U-3", supplierId: "U-S", minimum: 100, enforcement: "WARN" },
        { accountId: "U-4", supplierId: "U-S", minimum: 100, enforcement: "WARN" },
        { accountId: LONG_ACCOUNT, supplierId: LONG_SUPPLIER, storeId: "STORE-CENTRAL-12", minimum: 9007199254740991, enforcement: "BLOCK" },
      ];
      assert.equal((await api("PUT", RULES, rules)).status, 200);
      const created = await api("POST", "/v1/operations", {
        code: `UNITS-${Date.now()}`,
        name: { en: "Units and phones" },
        type: "PUBLIC",
        startDate: "2098-01-01T00:00:00Z",
        endDate: "2098-12-31T00:00:00Z",
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      operationId = created.body.id;
      const lines = [
        { variantExternalId: LONG_VARIANT, variantName: { en: "Organic cotton shirt, blue, extra large" }, minQuantity: 1, maxQuantity: 10 },
        { variantExternalId: "SKU-B", variantName: { en: "Short" }, minQuantity: 1, maxQuantity: 10 },
      ];
      assert.equal((await api("PUT", `/v1/operations/${operationId}/lines`, lines)).status, 200);
      page = await console_.browser.newPage();
      await console_.signIn(page, console_.operatorKey, "OPERATOR");
    },
    { timeout: 240_000 },
  );

  after(async () => {
    await console_?.close();
  });

  describe("the rules grid's minimum in major units of the tenant's currency", () => {
    it("shows the minimum in euros with the unit in its header, exactly (2^53 − 1 cents too)", TIMEOUT, async () => {
      await page.goto(`${baseUrl}/console/quota-rules?view=grid&sort=accountId`);
      await rulesGrid().waitFor();
      await page.getByRole("columnheader", { name: "Minimum (EUR)" }).waitFor();
      await cell(await rowOf("U-1"), MINIMUM)
        .getByText("180.00")
        .waitFor();
      assert.equal(await cellText(await rowOf("U-2"), MINIMUM), "0.05");
      assert.equal(await cellText(await rowOf(LONG_ACCOUNT), MINIMUM), "90071992547409.91");
      // The CSV keeps the API's unit (an export imports back) and says so.
      await page.getByText("The file's minimum is in minor units of EUR, as the API holds it: 18000 is €180.00.").waitFor();
    });

    it("takes typed, pasted, filled and replaced amounts in euros, refuses a third decimal on the cell, undoes and reviews in euros", TIMEOUT, async () => {
      const u1 = await rowOf("U-1");
      await goTo(u1, MINIMUM);
      await page.keyboard.type("1.15");
      await press("Enter");
      assert.equal(await cellText(u1, MINIMUM), "1.15");

      // A third decimal is a tenth of a cent: refused on the cell, said in words, never rounded.
      await goTo(await rowOf("U-2"), MINIMUM);
      await page.keyboard.type("1.234");
      await press("Enter");
      const u2 = await rowOf("U-2");
      assert.equal(await cell(u2, MINIMUM).getAttribute("aria-invalid"), "true");
      await goTo(u2, MINIMUM);
      await page.locator("#rules-grid-cell-error").getByText("EUR has 2 decimals at most: 1.234 has 3").waitFor();
      await page.getByRole("button", { name: "Check changes" }).click();
      await page.getByText(/^Not saved: fix this row first\. U-2 \/ .*: EUR has 2 decimals at most: 1\.234 has 3\.$/).waitFor();
      assert.equal(await minimumOf("U-2"), 5, "nothing is saved while a cell is refused");
      await goTo(u2, MINIMUM);
      await page.keyboard.type("0.29");
      await press("Enter");
      assert.equal(await cell(u2, MINIMUM).getAttribute("aria-invalid"), null);

      // A pasted block (as a spreadsheet copies it): "12.5" is held as 12.50.
      const u3 = await rowOf("U-3");
      await goTo(u3, MINIMUM);
      await paste("12.5\tWARN");
      await said("1 row pasted.");
      assert.equal(await cellText(u3, MINIMUM), "12.50");
      // Fill down into U-4.
      await goTo(u3, MINIMUM);
      await press("Shift+ArrowDown");
      await press("Control+d");
      await said("1 cell filled.");
      assert.equal(await cellText(await rowOf("U-4"), MINIMUM), "12.50");
      // Undo and redo keep the euros.
      await press("Control+z");
      await said("Undone: Fill down (1 cell).");
      assert.equal(await cellText(await rowOf("U-4"), MINIMUM), "1.00");
      await press("Control+Shift+z");
      await said("Redone: Fill down (1 cell).");
      assert.equal(await cellText(await rowOf("U-4"), MINIMUM), "12.50");

      // Find and replace in Minimum: the preview and the cells in euros.
      await page.getByRole("button", { name: "Find and replace" }).click();
      const panel = page.getByRole("region", { name: "Find and replace" });
      await panel.getByLabel("Column").selectOption({ label: "Minimum (EUR)" });
      await panel.getByLabel("Find").fill(".50");
      await panel.getByLabel("Replace with").fill(".7");
      await said("2 cells of Minimum (EUR) will change.");
      const preview = panel.getByRole("table", { name: "Cells a replace will change in Minimum (EUR)" });
      assert.deepEqual((await preview.getByRole("row").nth(1).getByRole("cell").allInnerTexts()).slice(1), ["12.50", "12.70"]);
      await panel.getByLabel("Replace with").press("Enter");
      await said("2 cells replaced.");
      assert.equal(await cellText(u3, MINIMUM), "12.70");
      await screenshot(page, "units-rules-grid");

      await page.getByRole("button", { name: "Review changes" }).click();
      const dialog = page.getByRole("dialog", { name: "Review changes" });
      const table = dialog.getByRole("table", { name: "Pending changes" });
      assert.deepEqual((await table.getByRole("row").filter({ hasText: "U-1" }).getByRole("cell").allInnerTexts()).slice(1), [
        "Minimum (EUR)",
        "180.00",
        "1.15",
      ]);
      assert.deepEqual((await table.getByRole("row").filter({ hasText: "U-2" }).getByRole("cell").allInnerTexts()).slice(1), ["Minimum (EUR)", "0.05", "0.29"]);
      await press("Escape");
      await dialog.waitFor({ state: "detached" });

      // Sent as exact cents: 1.15 € is 115 (1.15 × 100 is 114.99999999999999 in floating point), 0.29 € is 29.
      await page.getByRole("button", { name: "Check changes" }).click();
      await page.getByRole("button", { name: "Apply" }).click();
      await said("Saved: 0 created, 4 updated");
      assert.deepEqual([await minimumOf("U-1"), await minimumOf("U-2"), await minimumOf("U-3"), await minimumOf("U-4")], [115, 29, 1270, 1270]);
    });
  });

  describe("amounts as spreadsheets and price tags write them", () => {
    it("reads €1,234.50 pasted, 1 234,5 € and EUR 1.234.567 typed; refuses 12.34,5 on the cell; saves exact cents", TIMEOUT, async () => {
      await page.goto(`${baseUrl}/console/quota-rules?view=grid&sort=accountId`);
      await rulesGrid().waitFor();
      const u1 = await rowOf("U-1");
      await goTo(u1, MINIMUM);
      await paste("€1,234.50\tBLOCK");
      await said("1 row pasted.");
      assert.equal(await cellText(u1, MINIMUM), "1234.50");
      const u2 = await rowOf("U-2");
      await goTo(u2, MINIMUM);
      await page.keyboard.type("1 234,5 €");
      await press("Enter");
      assert.equal(await cellText(u2, MINIMUM), "1234.50");
      const u3 = await rowOf("U-3");
      await goTo(u3, MINIMUM);
      await page.keyboard.type("12.34,5");
      await press("Enter");
      assert.equal(await cell(u3, MINIMUM).getAttribute("aria-invalid"), "true", "thousands come in groups of three");
      await goTo(u3, MINIMUM);
      await page.keyboard.type("EUR 1.234.567");
      await press("Enter");
      assert.equal(await cellText(u3, MINIMUM), "1234567.00");
      assert.equal(await cell(u3, MINIMUM).getAttribute("aria-invalid"), null);
      await page.getByRole("button", { name: "Check changes" }).click();
      await page.getByRole("button", { name: "Apply" }).click();
      await said("Saved: 0 created, 3 updated");
      assert.deepEqual([await minimumOf("U-1"), await minimumOf("U-2"), await minimumOf("U-3")], [123450, 123450, 123456700]);
    });
  });

  describe("codes read whole, on a phone (390 px) too", () => {
    /** The cells of `grid` whose text is cut (wider than the cell shows), among the columns `columns` (places). */
    const cutCells = (grid, columns) =>
      grid.evaluate(
        (element, cols) =>
          [...element.querySelectorAll('[role="gridcell"]')]
            .filter((cell) => cols.includes(Number(cell.getAttribute("aria-colindex")) - 1) && cell.scrollWidth > cell.clientWidth)
            .map((cell) => cell.textContent),
        columns,
      );

    it("shows a line's whole variant code, and keeps it in view while the grid scrolls sideways", TIMEOUT, async () => {
      await page.goto(`${baseUrl}/console/operations/${operationId}`);
      const grid = page.getByRole("grid", { name: /^Lines of / });
      await grid.getByRole("gridcell", { name: LONG_VARIANT }).waitFor();
      assert.deepEqual(await cutCells(grid, [0, 1]), [], "1440 px wide: no variant code nor name is cut");
      await page.setViewportSize({ width: 390, height: 844 });
      assert.deepEqual(await cutCells(grid, [0, 1]), [], "no variant code nor name is cut");
      await grid.evaluate((element) => {
        element.scrollLeft = element.scrollWidth;
      });
      const gridBox = await grid.boundingBox();
      const variantBox = await grid.getByRole("gridcell", { name: LONG_VARIANT }).boundingBox();
      assert.ok(variantBox.x >= gridBox.x - 1, `the variant column stays in view (${variantBox.x} vs ${gridBox.x})`);
      await checkGridPage(page, "units-lines-grid");
    });

    it("shows a rule's whole scope", TIMEOUT, async () => {
      await page.setViewportSize({ width: 1440, height: 900 });
      await page.goto(`${baseUrl}/console/quota-rules?view=grid&sort=accountId`);
      await rulesGrid().getByRole("gridcell", { name: LONG_ACCOUNT }).waitFor();
      assert.deepEqual(await cutCells(rulesGrid(), [0, 1, 2, 3]), [], "1440 px wide: no scope nor minimum is cut");
      await page.setViewportSize({ width: 390, height: 844 });
      assert.deepEqual(await cutCells(rulesGrid(), [0, 1, 2, 3]), [], "no scope nor minimum is cut");
      // From the keyboard: End goes to the last column, scrolled into view beside the account.
      await goTo(await rowOf(LONG_ACCOUNT), 0);
      await press("End");
      const gridBox = await rulesGrid().boundingBox();
      const enforcement = await cell(await rowOf(LONG_ACCOUNT), 4).boundingBox();
      assert.ok(enforcement.x + enforcement.width <= gridBox.x + gridBox.width + 1, "the active cell is scrolled into view");
      await checkGridPage(page, "units-rules-grid-phone");
    });
  });
}
