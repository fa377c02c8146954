// Editing a 5000-line Operation in the console safely, in headless Chromium, as a person would (the
// keyboard where a person would use it): a variant added or pasted again edits its row, never a
// second one (and one outside the filter becomes an edit of its line before anything is saved); the
// filter finds a variant by code or name as you type; the active cell's error shows right under it;
// Save dry-runs every chunk of 5000 before saving any, and says exactly what a refusal midway saved;
// the lines and the rules grid exported to Excel and imported back (unchanged: no change; a file with
// errors marked cell by cell, then fixed and saved); leaving a page with unsaved edits asks first; Deactivate asks first; the lines of an ACTIVE
// Operation export; the console has an icon. Two people on one Operation, each in a browser of their
// own: a change one saves appears at the other's without a reload, keeping the other's unsaved edits;
// a cell both changed is shown to resolve, never lost; who is here and on which cell; the Orders and
// Totals as orders arrive; a dropped connection says so and catches up.
// Needs Debian's chromium at /usr/bin/chromium (driven by playwright-core, which never downloads one).
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import ExcelJS from "exceljs";
import { launchChromium } from "../../scripts/lib/chromium.mjs";
import {
  assertAccessible,
  checkGridPage,
  checkPage,
  chromiumPresent,
  createOperationWithLines,
  itemLines,
  itemSku,
  screenshot,
  settled,
  startConsole,
} from "./support/browser.mjs";

const TIMEOUT = { timeout: 180_000 };
const LINES = 5000;
/** A count as the console writes it in English (5,000). */
const en = (count) => count.toLocaleString("en");
const sku = itemSku;

if (chromiumPresent("console editing test")) {
  let editing, page, api, baseUrl, operationId;
  const code = `EDIT-${Date.now()}`;

  const grid = () => page.getByRole("grid");
  const cell = (row, col) => page.locator(`#cell-${row}-${col}`);
  const rowCount = async () => Number(await grid().getAttribute("aria-rowcount"));
  const rowsShown = (lines) =>
    page.waitForFunction((expected) => document.querySelector('[role="grid"]')?.getAttribute("aria-rowcount") === String(expected), lines + 1, {
      timeout: 30_000,
    });
  const status = (text) => page.getByRole("status").filter({ hasText: text });
  const paste = (text) =>
    grid().evaluate((element, data) => {
      const clipboard = new DataTransfer();
      clipboard.setData("text/plain", data);
      element.dispatchEvent(new ClipboardEvent("paste", { clipboardData: clipboard, bubbles: true, cancelable: true }));
    }, text);
  /** A file given to Import Excel's input (the file chooser the button opens, as a test drives it). */
  const importExcel = (path) => page.locator('input[type="file"][accept*=".xlsx"]').setInputFiles(path);
  const storedLines = async (...variants) => (await api("GET", `/v1/operations/${operationId}/lines?variantIds=${variants.join(",")}`)).body.items;
  const lineCount = async () => (await api("GET", `/v1/operations/${operationId}`)).body.lineCount;
  const nav = (name) => page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name, exact: true });
  const leaveDialog = () => page.getByRole("dialog", { name: "Leave with unsaved edits?" });
  const focusedText = () => page.evaluate(() => document.activeElement?.textContent);
  const openOperation = async (id, lines) => {
    await page.goto(`${baseUrl}/console/operations/${id}`);
    await rowsShown(lines);
  };

  before(
    async () => {
      editing = await startConsole({ tenant: "editing" });
      ({ api, baseUrl } = editing);
      operationId = await createOperationWithLines(api, { code: code, name: "Editing spring", lines: itemLines(LINES) });
      page = await editing.browser.newPage();
      await editing.signIn(page, editing.operatorKey, "OPERATOR");
      await openOperation(operationId, LINES);
    },
    { timeout: 240_000 },
  );

  after(async () => {
    await editing?.close();
  });

  describe("editing in the console", () => {
    it("adds and pastes a variant already in the grid into its own row (filled cells only), never a second row", TIMEOUT, async () => {
      await page.getByRole("button", { name: "Add line" }).focus();
      await page.keyboard.press("Enter");
      await page.getByRole("textbox", { name: `variantExternalId, row ${LINES + 1}` }).waitFor();
      await page.keyboard.type(sku(10));
      await page.keyboard.press("Tab");
      await status(`${sku(10)} is already in the grid (row 11): that row was edited instead of adding another.`).waitFor();
      assert.equal(await rowCount(), LINES + 1, "no second row for the variant");
      assert.equal(await grid().getAttribute("aria-activedescendant"), "cell-10-1", "the active cell moved to the variant's row");
      await page.keyboard.press("ArrowRight");
      await page.keyboard.press("ArrowRight");
      await page.keyboard.type("12");
      await page.keyboard.press("Enter");
      assert.equal(await cell(10, 3).innerText(), "12");
      assert.match(await cell(10, 0).textContent(), /\(unsaved\)/);

      // A block with variants, pasted at the first row: an existing variant edits its own row (the
      // first row, another variant, is left alone), a new one is a new row.
      await page.keyboard.press("Control+Home");
      for (let i = 0; i < 3; i++) await page.keyboard.press("ArrowLeft");
      await paste(`${sku(11)}\t\t\t20\nSKU-NEW-1\tNew one\t1\t5`);
      await status("Pasted 2 rows, 1 of them new; 1 row named a variant already in the grid and edited its row (filled cells only).").waitFor();
      assert.equal(await rowCount(), LINES + 2);
      assert.deepEqual([await cell(0, 0).innerText(), await cell(0, 3).innerText()], [sku(0), "10"], "the row pasted over keeps its own variant and values");
      assert.deepEqual([await cell(11, 1).innerText(), await cell(11, 3).innerText(), await cell(11, 4).innerText()], ["Item 11", "20", "5"]);
      await page.getByRole("button", { name: "Save" }).click();
      await status("Saved: 1 created, 2 updated.").waitFor();
      const saved = await storedLines(sku(10), sku(11), "SKU-NEW-1");
      assert.deepEqual(
        saved.map((line) => [line.variantExternalId, line.variantName.en, line.minQuantity, line.maxQuantity, line.recommendedQuantity]),
        [
          ["SKU-NEW-1", "New one", 1, 5, null],
          [sku(10), "Item 10", 1, 12, 5],
          [sku(11), "Item 11", 1, 20, 5],
        ].sort(),
      );
    });

    it("filters as you type by a variant's code or a part of its name; a variant outside the filter, added, edits its stored line", TIMEOUT, async () => {
      const search = page.getByLabel("Search variant or name");
      await search.pressSequentially("Item 42");
      await rowsShown(111); // Item 42, 420–429, 4200–4299
      await search.fill(sku(4242));
      await rowsShown(1);
      assert.equal(await cell(0, 0).innerText(), sku(4242));
      await search.fill(`${sku(7)}, ${sku(4242)}`);
      await rowsShown(2);
      await search.fill("Item 42");
      await rowsShown(111);

      // SKU-00001 is not shown: added as a new row, it would overwrite the stored line (its name,
      // its recommended quantity) if it were saved as typed.
      await page.getByRole("button", { name: "Add line" }).focus();
      await page.keyboard.press("Enter");
      await page.keyboard.type(sku(1));
      await page.keyboard.press("Tab");
      await page.keyboard.press("ArrowRight");
      await page.keyboard.type("2");
      await page.keyboard.press("Tab");
      await page.keyboard.type("9");
      await page.keyboard.press("Enter");
      const puts = [];
      const onRequest = (request) => request.method() === "PUT" && puts.push(new URL(request.url()).searchParams.get("dryRun"));
      page.on("request", onRequest);
      await page.getByRole("button", { name: "Save" }).click();
      await status("Not saved yet: 1 new row names a variant the Operation already holds").waitFor();
      assert.deepEqual(puts, ["true"], "a dry run only");
      assert.equal(await cell(111, 0).textContent(), `${sku(1)} (unsaved)`);
      assert.deepEqual(
        [await cell(111, 1).innerText(), await cell(111, 2).innerText(), await cell(111, 3).innerText(), await cell(111, 4).innerText()],
        ["Item 1", "2", "9", "5"],
        "the stored name and recommended quantity are kept",
      );
      await page.getByRole("button", { name: "Save" }).click();
      await status("Saved: 0 created, 1 updated.").waitFor();
      page.off("request", onRequest);
      const [line] = await storedLines(sku(1));
      assert.deepEqual([line.variantName.en, line.minQuantity, line.maxQuantity, line.recommendedQuantity], ["Item 1", 2, 9, 5]);
      await search.fill("");
      await rowsShown(LINES + 1);
    });

    it("a refused Save names the row and its reason in the grid's words, and takes the person to it far below", TIMEOUT, async () => {
      // Row 5000 (SKU-04999, above the line SKU-NEW-1 added earlier) made wrong, then the grid and the page back at their top.
      await grid().focus();
      for (const key of ["Control+Home", "Home", "ArrowRight", "ArrowRight", "Control+End", "ArrowUp"]) await page.keyboard.press(key);
      await page.keyboard.type("50");
      await page.keyboard.press("Enter");
      await page.keyboard.press("Control+Home");
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.getByRole("button", { name: "Save" }).click();
      await status(
        `Not saved: fix this row first. ${sku(LINES - 1)} (row ${LINES}): Min 50 is greater than Max 10; Recommended 5 is outside [50, 10].`,
      ).waitFor();
      // The grid has the focus, on that row's Min, and the row stands in the window, its reason whole beside it.
      assert.equal(await grid().getAttribute("aria-activedescendant"), `cell-${LINES - 1}-2`);
      assert.equal(await settled(page, () => document.activeElement?.getAttribute("role"), "grid"), "grid");
      await page.waitForFunction(
        (id) => {
          const box = document.getElementById(id)?.getBoundingClientRect();
          return box !== undefined && box.top >= 0 && box.bottom <= window.innerHeight;
        },
        `cell-${LINES - 1}-2`,
      );
      const tip = page.locator("#grid-cell-error");
      assert.equal(await tip.innerText(), "Min 50 is greater than Max 10");
      assert.ok(
        await tip.evaluate((element) => element.scrollWidth <= element.clientWidth && element.getBoundingClientRect().top >= 0),
        "the reason is not cut",
      );
      await screenshot(page, "grid-save-refused");
      // Fixed: the refusal's sentence is old news at the next edit, and goes.
      await page.keyboard.type("1");
      await page.keyboard.press("Enter");
      await status("Not saved: fix this row first").waitFor({ state: "detached" });
      assert.equal(await page.getByText(/· \d+ unsaved/).count(), 0, "back to the stored value");
    });

    it("shows the active cell's error right under it, describes the cell with it, and passes axe with it shown", TIMEOUT, async () => {
      await grid().focus();
      await page.keyboard.press("Control+Home");
      await cell(2, 2).click();
      await page.keyboard.type("50");
      const tip = page.locator("#grid-cell-error");
      await tip.waitFor();
      assert.equal(await tip.innerText(), "Min 50 is greater than Max 10", "in the grid's words");
      assert.equal(await page.getByRole("textbox", { name: "minQuantity, row 3" }).getAttribute("aria-describedby"), "grid-cell-error");
      const under = async (row, col) => {
        const [box, at] = [await tip.boundingBox(), await cell(row, col).boundingBox()];
        assert.ok(Math.abs(box.y - (at.y + at.height)) <= 4, `the error starts right under the cell (${box.y} vs ${at.y + at.height})`);
        return { box, at };
      };
      const { box, at } = await under(2, 2);
      assert.ok(Math.abs(box.x - at.x) <= 2, "and at its left edge");
      await page.keyboard.press("Enter");
      assert.equal(await tip.count(), 0, "the next row has no error: nothing shows");
      await page.keyboard.press("ArrowUp");
      await tip.waitFor();
      assert.equal(await cell(2, 2).getAttribute("aria-describedby"), "grid-cell-error");
      await page.keyboard.press("ArrowRight");
      await under(2, 3);
      await screenshot(page, "grid-cell-error");
      await checkPage(page, "grid with a cell's error");
      await page.keyboard.press("ArrowLeft");
      await page.keyboard.press("Enter");
      await page.keyboard.press("Control+a");
      await page.keyboard.type("1");
      await page.keyboard.press("Enter");
      assert.equal(await tip.count(), 0);
      assert.equal(await page.getByText(/· \d+ unsaved/).count(), 0, "back to the stored value");
    });

    it("saves more than 5000 lines only after a dry run of every chunk; a refusal midway says which rows were saved and keeps the rest", TIMEOUT, async () => {
      // Every stored variant gets a new maximum (5000 rows), and one new line whose code is too long for
      // the server: the second chunk's dry run refuses it, so the first chunk is not saved either.
      const tooLong = `SKU-${"X".repeat(130)}`;
      const stored = await lineCount();
      await grid().focus();
      await page.keyboard.press("Control+Home");
      await cell(0, 0).click();
      await paste([...Array.from({ length: LINES }, (_, i) => `${sku(i)}\t\t\t77`), `${tooLong}\tNew\t1\t5`].join("\n"));
      await status(`Pasted ${en(LINES + 1)} rows, 1 of them new; ${en(LINES)} rows named a variant already in the grid`).waitFor();
      const puts = [];
      const onRequest = (request) => request.method() === "PUT" && puts.push(new URL(request.url()).searchParams.get("dryRun"));
      page.on("request", onRequest);
      await page.getByRole("button", { name: "Save" }).click();
      await status("Not saved: the dry run found errors, marked on their rows; nothing was saved.").waitFor();
      assert.deepEqual(puts, ["true", "true"], "two dry runs, no commit");
      assert.equal((await storedLines(sku(0)))[0].maxQuantity, 10, "the first chunk is not saved");
      assert.equal(await lineCount(), stored);
      const last = (await rowCount()) - 2;
      await grid().focus();
      await page.keyboard.press("Control+End");
      assert.equal(await cell(last, 0).getAttribute("aria-invalid"), "true", "the refused row is marked");
      await page.getByText(`Row ${last + 1}, server:`).waitFor();

      // Fixed; then someone activates the Operation between the two commits: the server refuses the
      // second, and the page says what the first saved.
      await page.keyboard.press("Enter");
      await page.keyboard.press("Control+a");
      await page.keyboard.type(sku(LINES));
      await page.keyboard.press("Enter");
      puts.length = 0;
      let commits = 0;
      await page.route("**/v1/operations/*/lines*", async (route) => {
        const request = route.request();
        if (request.method() === "PUT" && new URL(request.url()).searchParams.get("dryRun") === "false" && ++commits === 2) {
          assert.equal((await api("POST", `/v1/operations/${operationId}/status`, { status: "ACTIVE" })).status, 200);
        }
        await route.continue();
      });
      await page.getByRole("button", { name: "Save" }).click();
      await status(
        `Partly saved: the first ${en(LINES)} of the ${en(LINES + 1)} changed lines were saved (${sku(0)} to ${sku(LINES - 1)}, in the grid's order); the server then refused the next one, which stays as an unsaved edit, marked in the grid.`,
      ).waitFor();
      await page.unroute("**/v1/operations/*/lines*");
      page.off("request", onRequest);
      assert.deepEqual(puts, ["true", "true", "false", "false"]);
      await page.getByRole("alert").filter({ hasText: "operation_not_draft" }).waitFor();
      await page.getByText("· 1 unsaved").waitFor();
      assert.equal((await storedLines(sku(0)))[0].maxQuantity, 77, "the first chunk is saved");
      assert.deepEqual(await storedLines(sku(LINES)), [], "the second is not");
      assert.match(await cell((await rowCount()) - 2, 0).textContent(), new RegExp(`^${sku(LINES)}.*\\(unsaved\\)`));
      await screenshot(page, "grid-partly-saved");
      // ACTIVE, the grid still edits Pool and Per account: Discard is a step Undo takes back, and asks nothing.
      await page.getByRole("button", { name: "Discard" }).click();
      await status("Discarded 1 unsaved row").waitFor();
      assert.equal((await api("POST", `/v1/operations/${operationId}/status`, { status: "DRAFT" })).status, 200);
      await openOperation(operationId, stored);
    });

    it("exports the lines to Excel and imports them back: unchanged, nothing changes; errors are marked cell by cell; fixed, they save", TIMEOUT, async () => {
      // An Operation of its own, of a few rows: the round trip's rules are under test here, its time at
      // 5,000 rows in the console bench (npm run bench -- console).
      const wholeOperation = operationId;
      const excelCode = `XL-${code}`;
      operationId = await createOperationWithLines(api, { code: excelCode, name: "Excel spring", lines: itemLines(20) });
      try {
        await excelRoundTrip(excelCode);
      } finally {
        operationId = wholeOperation;
      }
    });

    async function excelRoundTrip(code) {
      const scratch = await mkdtemp(join(tmpdir(), "console-excel-"));
      // The driver intercepts file choosers once a listener is there; one set up now is in force by the time a key opens one.
      const chosen = new Promise((resolve) => page.once("filechooser", resolve));
      const stored = await lineCount();
      // A name a spreadsheet would run as a formula, stored as text: the sheet keeps it a text cell.
      const formulaName = "=cmd|' /C calc'!A0";
      assert.equal((await api("PUT", `/v1/operations/${operationId}/lines`, [{ variantExternalId: sku(1), variantName: { en: formulaName } }])).status, 200);
      await openOperation(operationId, stored);

      await page.getByRole("button", { name: "Export Excel" }).focus();
      const [download] = await Promise.all([page.waitForEvent("download"), page.keyboard.press("Enter")]);
      assert.equal(download.suggestedFilename(), `lines-${code}.xlsx`);
      await status(`Exported ${en(stored)} rows to lines-${code}.xlsx.`).waitFor();
      const exported = join(scratch, "lines.xlsx");
      await download.saveAs(exported);
      const book = new ExcelJS.Workbook();
      await book.xlsx.readFile(exported);
      const sheet = book.worksheets[0];
      assert.deepEqual(sheet.getRow(1).values.slice(1), [
        "variantExternalId",
        "variantName",
        "minQuantity",
        "maxQuantity",
        "recommendedQuantity",
        "quantityIncrement",
      ]);
      assert.equal(sheet.rowCount, stored + 1);
      const name = sheet.getCell("B3");
      assert.deepEqual(
        [sheet.getCell("A3").value, name.type, name.formula, name.value, name.numFmt],
        [sku(1), ExcelJS.ValueType.String, undefined, formulaName, "@"],
      );
      const [second] = await storedLines(sku(1));
      assert.deepEqual([sheet.getCell("C3").type, sheet.getCell("C3").value], [ExcelJS.ValueType.Number, second.minQuantity], "numbers are numbers");

      // Import Excel from the keyboard: Enter opens the file chooser (later files go to its input directly).
      await page.getByRole("button", { name: "Import Excel" }).focus();
      await page.keyboard.press("Enter");
      await (await chosen).setFiles(exported);
      await status(`Imported lines.xlsx: ${en(stored)} rows read, nothing changed.`).waitFor();
      await page.getByText("0 unsaved cells").waitFor();
      assert.equal(await page.getByRole("button", { name: "Save" }).isDisabled(), true, "nothing to save");

      // A file with errors: a word for Min, a formula for Max (read as its text), Min over Max; and a
      // name starting with = (text, not an error) and a new line.
      const exportedValues = ["C8", "D10", "C12"].map((at) => [at, sheet.getCell(at).value]);
      sheet.getCell("C8").value = "abc";
      sheet.getCell("D10").value = { formula: "1+1", result: 2 };
      sheet.getCell("C12").value = 500;
      sheet.getCell("B5").value = '=HYPERLINK("http://x")';
      sheet.addRow(["SKU-XL-1", "From Excel", 2, 8, null, 2]);
      const withErrors = join(scratch, "with-errors.xlsx");
      await book.xlsx.writeFile(withErrors);
      await importExcel(withErrors);
      await status(`Imported with-errors.xlsx: ${en(stored + 1)} rows read, 5 rows changed (1 new).`).waitFor();
      await status(`5 cells in 3 rows need fixing, marked in red; the first: ${sku(6)} (file row 8): a whole number ≥ 0.`).waitFor();
      assert.equal(await grid().getAttribute("aria-activedescendant"), "cell-6-2", "the grid goes to the first cell to fix");
      assert.equal(await settled(page, () => document.activeElement?.getAttribute("role"), "grid"), "grid");
      for (const [row, col] of [
        [6, 2],
        [8, 3],
        [10, 2],
        [10, 3],
        [10, 4],
      ])
        assert.equal(await cell(row, col).getAttribute("aria-invalid"), "true", `cell ${row},${col}`);
      assert.deepEqual([await cell(8, 3).innerText(), await cell(3, 1).innerText()], ["=1+1", '=HYPERLINK("http://x")']);
      await screenshot(page, "grid-excel-errors");
      await assertAccessible(page, "the lines grid after an Excel import with errors");
      // The same path as any edit: Save refuses before sending; Undo takes the whole import back.
      await page.getByRole("button", { name: "Save" }).click();
      await status("Not saved: fix these 3 rows first.").waitFor();
      await grid().focus();
      await page.keyboard.press("Control+z");
      await status("Undone: Import with-errors.xlsx.").waitFor();
      await page.getByText("0 unsaved cells").waitFor();

      // Refused whole: a column the CSV has not, a file that is not a workbook.
      const refused = new ExcelJS.Workbook();
      refused.addWorksheet("Lines").addRows([
        ["variantExternalId", "orderedQuantity"],
        [sku(0), 3],
      ]);
      await refused.xlsx.writeFile(join(scratch, "ordered.xlsx"));
      await importExcel(join(scratch, "ordered.xlsx"));
      await status("Not imported: ordered.xlsx names a column the grid does not take (orderedQuantity)").waitFor();
      await writeFile(join(scratch, "not-excel.xlsx"), "variantExternalId\nSKU-1\n");
      await importExcel(join(scratch, "not-excel.xlsx"));
      await status("Not imported: not-excel.xlsx is not an Excel workbook (.xlsx). The grid is as it was.").waitFor();

      // Fixed in the sheet (those cells as exported): the name and the new line are saved, after Save's dry run.
      for (const [at, value] of exportedValues) sheet.getCell(at).value = value;
      await book.xlsx.writeFile(join(scratch, "fixed.xlsx"));
      await importExcel(join(scratch, "fixed.xlsx"));
      await status(`Imported fixed.xlsx: ${en(stored + 1)} rows read, 2 rows changed (1 new).`).waitFor();
      await page.getByRole("button", { name: "Save" }).click();
      await status("Saved: 1 created, 1 updated.").waitFor();
      const [named, added] = await storedLines(sku(3), "SKU-XL-1");
      assert.deepEqual(
        [named.variantName.en, [added.variantName.en, added.minQuantity, added.maxQuantity, added.recommendedQuantity, added.quantityIncrement]],
        ['=HYPERLINK("http://x")', ["From Excel", 2, 8, null, 2]],
      );
      await rm(scratch, { recursive: true, force: true });
    }

    it("exports the rules grid to Excel and imports it back: unchanged, nothing changes; a new minimum is checked and applied", TIMEOUT, async () => {
      const scratch = await mkdtemp(join(tmpdir(), "console-excel-rules-"));
      const put = await api("PUT", "/v1/buying-policies/quotas/rules", [
        { accountId: "XL-A", minimum: 18000 },
        { supplierId: "XL-S", storeId: "XL-ST", minimum: 500, enforcement: "WARN" },
      ]);
      assert.equal(put.status, 200, JSON.stringify(put.body));
      await page.goto(`${baseUrl}/console/quota-rules?view=grid`);
      await page.getByRole("gridcell", { name: "XL-A" }).first().waitFor();
      const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export Excel" }).click()]);
      assert.equal(download.suggestedFilename(), "quota-rules.xlsx");
      const exported = join(scratch, "rules.xlsx");
      await download.saveAs(exported);
      const book = new ExcelJS.Workbook();
      await book.xlsx.readFile(exported);
      const sheet = book.worksheets[0];
      assert.deepEqual(sheet.getRow(1).values.slice(1), ["id", "accountId", "supplierId", "storeId", "minimum", "enforcement"]);
      const rowOf = (account) => sheet.getRows(2, sheet.rowCount - 1).find((row) => row.getCell(2).value === account);
      const values = [1, 2, 3, 4, 5, 6].map((column) => rowOf("XL-A").getCell(column).value);
      assert.match(values[0], /\S/, "the rule's id");
      assert.deepEqual(values.slice(1), ["XL-A", null, null, 18000, "BLOCK"], "the minimum in minor units, a number");

      await importExcel(exported);
      await status(`Imported rules.xlsx: ${en(sheet.rowCount - 1)} rows read, nothing changed.`).waitFor();
      rowOf("XL-A").getCell(5).value = 25000;
      await book.xlsx.writeFile(join(scratch, "raised.xlsx"));
      await importExcel(join(scratch, "raised.xlsx"));
      await status(`Imported raised.xlsx: ${en(sheet.rowCount - 1)} rows read, 1 row changed.`).waitFor();
      await page.getByRole("button", { name: "Check changes" }).click();
      await status("Dry run: 0 created, 1 updated").waitFor();
      await page.getByRole("button", { name: "Apply" }).click();
      await status("Saved: 0 created, 1 updated").waitFor();
      const rules = (await api("GET", "/v1/buying-policies/quotas/rules?accountId=XL-A")).body.items;
      assert.deepEqual(
        rules.map((rule) => [rule.accountId, rule.minimum]),
        [["XL-A", 25000]],
      );
      await rm(scratch, { recursive: true, force: true });
    });

    it("asks before leaving unsaved edits: a link or Back opens a dialog (Escape or Cancel stays), closing the tab asks the browser", TIMEOUT, async () => {
      // Reached inside the console, so Back stays in the page (a History API step).
      await nav("Operations").click();
      await page.getByRole("link", { name: code, exact: true }).click();
      await rowsShown(LINES + 1);
      const here = page.url();
      await cell(0, 3).click();
      await page.keyboard.type("11");
      await page.keyboard.press("Enter");
      await page.getByText("· 1 unsaved").waitFor();

      await nav("Operations").click();
      await leaveDialog().waitFor();
      assert.equal(await focusedText(), "Cancel", "the safe answer has the focus");
      await checkPage(page, "leave dialog");
      await page.keyboard.press("Escape");
      await leaveDialog().waitFor({ state: "detached" });
      assert.equal(page.url(), here);
      assert.equal(await cell(0, 3).innerText(), "11", "the edit is still there");

      await page.evaluate(() => history.back());
      await leaveDialog().waitFor();
      assert.equal(page.url(), here, "Back is held while the dialog asks");
      await page.keyboard.press("Enter"); // Cancel
      await leaveDialog().waitFor({ state: "detached" });
      assert.equal(page.url(), here);
      await page.getByText("· 1 unsaved").waitFor();

      const [question] = await Promise.all([page.waitForEvent("dialog"), page.close({ runBeforeUnload: true })]);
      assert.equal(question.type(), "beforeunload");
      await question.dismiss();
      assert.equal(page.isClosed(), false);

      // Confirmed from the keyboard, Back goes where it was asked to.
      await page.evaluate(() => history.back());
      await leaveDialog().waitFor();
      await page.keyboard.press("Tab");
      assert.equal(await focusedText(), "Leave and discard them");
      await page.keyboard.press("Enter");
      await page.getByRole("heading", { level: 1, name: "Operations" }).waitFor();
      assert.equal((await storedLines(sku(0)))[0].maxQuantity, 77, "nothing was saved");
    });

    it("asks before leaving the rules grid or a rule's form with unsaved edits", TIMEOUT, async () => {
      await nav("Quota rules").click();
      await page.getByRole("button", { name: "Edit in a grid" }).click();
      await page.getByRole("button", { name: "Add rule" }).click();
      await page.keyboard.type("ACC-LEAVE");
      await page.keyboard.press("Enter");
      await page.getByText("· 1 unsaved").waitFor();
      await page.getByRole("button", { name: "List", exact: true }).click();
      await leaveDialog().waitFor();
      await page.keyboard.press("Escape");
      await nav("Accounts").click();
      await leaveDialog().waitFor();
      await page.keyboard.press("Escape");
      await page.getByRole("grid", { name: "Quota rules" }).waitFor();
      await page.getByRole("button", { name: "Discard" }).click();
      await nav("Accounts").click();
      await page.getByRole("heading", { level: 1, name: "Accounts" }).waitFor();

      await page.goto(`${baseUrl}/console/quota-rules/new`);
      await page.getByLabel("Minimum").fill("5");
      await nav("Keys").click();
      await leaveDialog().waitFor();
      await leaveDialog().getByRole("button", { name: "Leave and discard them" }).click();
      await page.getByRole("heading", { level: 1, name: "Keys" }).waitFor();
    });

    it("asks before deactivating a DRAFT Operation; Escape keeps it DRAFT", TIMEOUT, async () => {
      const draft = await api("POST", "/v1/operations", {
        code: `${code}-D`,
        name: { en: "Still a draft" },
        type: "PUBLIC",
        startDate: "2098-01-01T00:00:00Z",
        endDate: "2098-12-31T00:00:00Z",
      });
      await openOperation(draft.body.id, 0);
      await page.getByRole("button", { name: "Deactivate" }).focus();
      await page.keyboard.press("Enter");
      const confirm = page.getByRole("dialog", { name: `Deactivate ${code}-D?` });
      await confirm.waitFor();
      assert.match(await confirm.innerText(), /still a draft/);
      await checkPage(page, "deactivate dialog");
      await page.keyboard.press("Escape");
      await confirm.waitFor({ state: "detached" });
      assert.equal((await api("GET", `/v1/operations/${draft.body.id}`)).body.status, "DRAFT");
      await page.getByRole("button", { name: "Deactivate" }).click();
      await confirm.getByRole("button", { name: "Deactivate" }).click();
      await page.locator(".badge", { hasText: "INACTIVE" }).waitFor();
      assert.equal((await api("GET", `/v1/operations/${draft.body.id}`)).body.status, "INACTIVE");
    });

    it("labels the sort choices as the columns, and exports an ACTIVE Operation's lines", TIMEOUT, async () => {
      const active = await api("POST", "/v1/operations", {
        code: `${code}-A`,
        name: { en: "Active one" },
        type: "PUBLIC",
        startDate: "2098-01-01T00:00:00Z",
        endDate: "2098-12-31T00:00:00Z",
      });
      await api("PUT", `/v1/operations/${active.body.id}/lines`, [
        { variantExternalId: "A-1", variantName: { en: "=cmd" }, minQuantity: 0, maxQuantity: 4 },
        { variantExternalId: "A-2", minQuantity: 1, maxQuantity: 8, recommendedQuantity: 2 },
      ]);
      assert.equal((await api("POST", `/v1/operations/${active.body.id}/status`, { status: "ACTIVE" })).status, 200);
      await openOperation(active.body.id, 2);
      const labels = await page.getByLabel("Sort").locator("option").allInnerTexts();
      assert.deepEqual(labels, [
        "Variant ↑",
        "Variant ↓",
        "Name ↑",
        "Name ↓",
        "Min ↑",
        "Min ↓",
        "Max ↑",
        "Max ↓",
        "Recommended ↑",
        "Recommended ↓",
        "Pack ↑",
        "Pack ↓",
        "Ordered ↑",
        "Ordered ↓",
      ]);
      const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export CSV" }).click()]);
      assert.equal(download.suggestedFilename(), `lines-${code}-A.csv`);
      const apiCsv = await (
        await fetch(`${baseUrl}/v1/operations/${active.body.id}/lines`, {
          headers: { accept: "text/csv", "svc-client": "OPERATOR", "svc-api-key": editing.operatorKey },
        })
      ).text();
      assert.equal(await readFile(await download.path(), "utf8"), apiCsv);
      assert.match(apiCsv, /A-1,'=cmd,0,4,,1/);
    });

    it("has an icon: /favicon.ico and the console's SVG answer, and no page load meets a 404", TIMEOUT, async () => {
      const ico = await fetch(`${baseUrl}/favicon.ico`);
      assert.equal(ico.status, 200);
      assert.match(ico.headers.get("content-type"), /^image\//);
      assert.deepEqual([...new Uint8Array(await ico.arrayBuffer()).slice(0, 4)], [0, 0, 1, 0], "an ICO file");
      const svg = await fetch(`${baseUrl}${await page.locator('link[rel="icon"]').getAttribute("href")}`);
      assert.equal(svg.status, 200);
      assert.match(svg.headers.get("content-type"), /^image\/svg\+xml/);
      assert.match(await svg.text(), /^<svg/);
      const missing = [];
      page.on("response", (response) => response.status() === 404 && missing.push(response.url()));
      await page.goto(`${baseUrl}/console/operations`);
      await page.getByRole("heading", { level: 1, name: "Operations" }).waitFor();
      await page.goto(`${baseUrl}/docs`);
      await page.waitForLoadState("networkidle");
      assert.deepEqual(missing, []);
      assert.equal(await page.evaluate(() => fetch("/favicon.ico").then((response) => response.status)), 200);
    });
  });

  describe("two people on one Operation, live", () => {
    const liveCode = `${code}-L`;
    let browser, liveId, ana, ben;
    // Ben's live connections pass through the test, which can cut them and refuse new ones.
    const benSockets = [];
    let benCut = false;

    const liveState = (person) => person.page.locator(".live-state");
    const here = (person) => person.page.getByRole("region", { name: "Here now" });
    const cellOf = (person, row, col) => person.page.locator(`#cell-${row}-${col}`);
    const said = (person, text) => person.page.getByRole("status").filter({ hasText: text });
    const conflicts = (person) => person.page.getByRole("region", { name: /changed by someone else too/ });
    const typeInto = async (person, row, col, value) => {
      await cellOf(person, row, col).click();
      await person.page.keyboard.type(value);
      await person.page.keyboard.press("Enter");
    };
    const save = async (person, counts) => {
      await person.page.getByRole("button", { name: "Save" }).click();
      await said(person, `Saved: ${counts}.`).waitFor();
    };
    const storedMax = async (row) => (await api("GET", `/v1/operations/${liveId}/lines?variantIds=${sku(row)}`)).body.items[0].maxQuantity;
    const version = async () => (await api("GET", `/v1/operations/${liveId}`)).body.version;
    const view = (person, name) => person.page.getByRole("navigation", { name: "Operation views" }).getByRole("link", { name, exact: true }).click();

    const rowsShownOn = (on, lines) =>
      on.waitForFunction((expected) => document.querySelector('[role="grid"]')?.getAttribute("aria-rowcount") === String(expected), lines + 1, {
        timeout: 30_000,
      });

    /** A person with an OPERATOR key of their own, signed in in a browser context of their own, on the Operation's lines. */
    async function personOn(name, { routed = false } = {}) {
      const issued = await api("POST", "/v1/keys", { role: "OPERATOR", name });
      assert.equal(issued.status, 201, JSON.stringify(issued.body));
      const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
      if (routed) {
        await context.routeWebSocket(/\/live\?/, (socket) => {
          if (benCut) socket.close({ code: 1011, reason: "cut by the test" });
          else benSockets.push({ socket, server: socket.connectToServer() });
        });
      }
      const page = await context.newPage();
      await editing.signIn(page, issued.body.key, "OPERATOR");
      await page.goto(`${baseUrl}/console/operations/${liveId}`);
      await rowsShownOn(page, 20);
      const person = { name, key: issued.body.key, context, page };
      await liveState(person)
        .filter({ hasText: /^Live$/ })
        .waitFor({ timeout: 30_000 });
      return person;
    }

    before(
      async () => {
        browser = await launchChromium();
        const created = await api("POST", "/v1/operations", {
          code: liveCode,
          name: { en: "Live spring" },
          type: "PUBLIC",
          startDate: "2020-01-01T00:00:00Z",
          endDate: "2099-12-31T00:00:00Z",
        });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        liveId = created.body.id;
        assert.equal((await api("PUT", `/v1/operations/${liveId}/lines`, itemLines(20))).status, 200);
        ana = await personOn("Ana Buyer");
        ben = await personOn("Ben Planner", { routed: true });
      },
      { timeout: 180_000 },
    );

    after(async () => {
      await browser?.close();
    });

    it("shows who else is here, by name (never a key), and the cell each is on", TIMEOUT, async () => {
      await here(ana).getByText("Ben Planner").waitFor();
      await here(ben).getByText("Ana Buyer").waitFor();
      for (const person of [ana, ben]) {
        const text = await here(person).innerText();
        assert.doesNotMatch(text, /sk3_|key_/, "no key fragment");
        assert.ok(!text.includes(person.name), "oneself is not listed");
        assert.ok(!text.includes(ana.key.slice(0, 8)) && !text.includes(ben.key.slice(0, 8)));
      }
      await cellOf(ben, 3, 3).click();
      await here(ana)
        .getByText(`on ${sku(3)} · Max`)
        .waitFor();
      await cellOf(ana, 3, 3).getByText("(Ben Planner here)").waitFor();
      await ben.page.keyboard.press("ArrowRight");
      await here(ana)
        .getByText(`on ${sku(3)} · Recommended`)
        .waitFor();
      await cellOf(ana, 3, 4).locator(".here-mark").waitFor();
      await screenshot(ana.page, "live-here-now");
      assert.equal(await cellOf(ana, 3, 3).locator(".here-mark").count(), 0, "the mark moved with him");
    });

    it("shows a change saved by the other without a reload, keeping one's own unsaved edits, and moves the page's version on", TIMEOUT, async () => {
      await typeInto(ben, 4, 2, "2");
      await ben.page.getByText("· 1 unsaved").waitFor();
      await typeInto(ana, 4, 3, "44");
      await typeInto(ana, 1, 3, "33");
      await save(ana, "0 created, 2 updated");
      await cellOf(ben, 1, 3).filter({ hasText: /^33$/ }).waitFor();
      await cellOf(ben, 4, 3).filter({ hasText: /^44$/ }).waitFor();
      assert.match(await cellOf(ben, 4, 2).innerText(), /^2$/, "his edit of the row stays");
      await ben.page.getByText("· 1 unsaved").waitFor();
      assert.equal(await conflicts(ben).count(), 0, "no cell was changed by both");
      await ben.page.getByText(new RegExp(`version ${await version()}$`)).waitFor();
    });

    it("shows a cell both changed as a conflict, never lost: Save waits for an answer, keep mine or keep theirs (keyboard alone)", TIMEOUT, async () => {
      await typeInto(ben, 5, 3, "50");
      await typeInto(ana, 5, 3, "55");
      await save(ana, "0 created, 1 updated");
      await conflicts(ben).waitFor();
      assert.match(await conflicts(ben).innerText(), new RegExp(`${sku(5)} · Max: yours 50, theirs 55`));
      assert.match(await cellOf(ben, 5, 3).innerText(), /^50/, "his value stays in the cell");
      assert.match(await cellOf(ben, 5, 3).getAttribute("class"), /\bconflict\b/);
      await cellOf(ben, 5, 3).getByText("(conflict: theirs 55)").waitFor();
      // Save says why not, and sends nothing.
      await ben.page.getByRole("button", { name: "Save" }).click();
      await said(ben, "Not saved: 1 cell changed by someone else too").waitFor();
      assert.equal(await storedMax(5), 55);

      await ben.page.getByRole("button", { name: `Keep mine for ${sku(5)} · Max` }).focus();
      await ben.page.keyboard.press("Enter");
      await said(ben, `Kept yours: ${sku(5)} · Max`).waitFor();
      await conflicts(ben).waitFor({ state: "detached" });
      assert.equal(await settled(ben.page, () => document.activeElement?.getAttribute("role"), "grid"), "grid", "the focus goes back to the grid");
      await screenshot(ben.page, "live-kept-mine");
      await save(ben, "0 created, 2 updated");
      assert.equal(await storedMax(5), 50);
      await cellOf(ana, 5, 3).filter({ hasText: /^50$/ }).waitFor();

      // The other way round: Ana keeps his.
      await typeInto(ana, 6, 3, "66");
      await typeInto(ben, 6, 3, "60");
      await save(ben, "0 created, 1 updated");
      await conflicts(ana).waitFor();
      await cellOf(ben, 6, 3).click();
      await here(ana)
        .getByText(`on ${sku(6)} · Max`)
        .waitFor();
      await checkGridPage(ana.page, "live-conflict");
      await ana.page.getByRole("button", { name: `Keep theirs for ${sku(6)} · Max` }).focus();
      await ana.page.keyboard.press("Enter");
      await said(ana, `Kept theirs: ${sku(6)} · Max`).waitFor();
      assert.match(await cellOf(ana, 6, 3).innerText(), /^60/);
      assert.equal(await ana.page.getByText(/· \d+ unsaved/).count(), 0, "nothing left to save");
    });

    it("says Reconnecting… while its connection is down, comes back by itself and shows what it missed", TIMEOUT, async () => {
      benCut = true;
      for (const { socket, server } of benSockets.splice(0)) {
        server.close();
        socket.close({ code: 1001, reason: "cut by the test" });
      }
      await liveState(ben).filter({ hasText: "Reconnecting…" }).waitFor();
      await here(ana).getByText("nobody else").waitFor();
      await typeInto(ana, 7, 3, "77");
      await save(ana, "0 created, 1 updated");
      await screenshot(ben.page, "live-reconnecting");
      benCut = false;
      await liveState(ben)
        .filter({ hasText: /^Live$/ })
        .waitFor({ timeout: 60_000 });
      await cellOf(ben, 7, 3).filter({ hasText: /^77$/ }).waitFor();
      await here(ana).getByText("Ben Planner").waitFor();
    });

    it("changes the status with the version the page took in: no 412 for a change it already shows", TIMEOUT, async () => {
      // Ben's save is the last change: Ana's page knows of it only by what its connection told.
      await typeInto(ben, 8, 3, "88");
      await save(ben, "0 created, 1 updated");
      await cellOf(ana, 8, 3).filter({ hasText: /^88$/ }).waitFor();
      await ana.page.getByText(new RegExp(`version ${await version()}$`)).waitFor();
      await ana.page.getByRole("button", { name: "Activate", exact: true }).click();
      await ana.page.locator(".badge", { hasText: "ACTIVE" }).waitFor();
      assert.equal(await ana.page.getByRole("alert").count(), 0);
      // Ben's page hears of it: only Pool and Per account edit now.
      await ben.page.locator(".badge", { hasText: "ACTIVE" }).waitFor();
      await ben.page.getByText("This Operation is ACTIVE: only Pool and Per account change now").waitFor();
    });

    it("updates the Orders and Totals as orders arrive, and the lines' Ordered", TIMEOUT, async () => {
      assert.equal((await api("PUT", "/v1/accounts", [{ accountId: "A-LIVE", name: "Live Shop" }])).status, 200);
      const order = (quantity) => ({
        operationId: liveId,
        accountId: "A-LIVE",
        lines: [{ variantExternalId: sku(1), quantity, unitPrice: 1000, supplierId: "SUP-1" }],
      });
      await view(ben, "Orders");
      const orders = ben.page.getByRole("table", { name: `Orders of ${liveCode}` });
      await ben.page.getByRole("heading", { name: "Orders", level: 2 }).waitFor();
      await view(ana, "Totals");
      const figure = (label) =>
        ana.page.locator(".figures div", { has: ana.page.getByRole("term").filter({ hasText: new RegExp(`^${label}$`) }) }).locator("dd");
      await figure("Orders").waitFor();
      assert.equal((await api("POST", "/v1/orders", order(3))).status, 201);
      await orders.getByText("Live Shop, A-LIVE").waitFor();
      await figure("Orders").filter({ hasText: "1 order" }).waitFor();
      await liveState(ben)
        .filter({ hasText: /^Live$/ })
        .waitFor();

      await view(ben, "Lines");
      await rowsShownOn(ben.page, 20);
      const ordered = 8;
      await cellOf(ben, 1, ordered).filter({ hasText: /^3$/ }).waitFor();
      assert.equal((await api("POST", "/v1/orders", order(2))).status, 201);
      await cellOf(ben, 1, ordered).filter({ hasText: /^5$/ }).waitFor();
      await figure("Orders").filter({ hasText: "2 orders" }).waitFor();
    });

    it("lists someone here while their page is open, and no more once it is closed", TIMEOUT, async () => {
      await view(ana, "Lines");
      await here(ana).getByText("Ben Planner").waitFor();
      await ben.context.close();
      await here(ana).getByText("nobody else").waitFor();
    });
  });
}
