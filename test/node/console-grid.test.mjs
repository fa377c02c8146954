// The console's grids edit like a spreadsheet (issue 38), in headless Chromium, as a person would (the
// keyboard where a person would use it): a block selected with Shift+arrows, copied as TSV and pasted
// into a selection; fill down (Ctrl+D) and the fill handle; Delete and Space clear while typing still
// edits; find and replace in a column after a preview; undo and redo that survive a sort and a search;
// the unsaved cells counted and reviewed (from → to) before Save; the rules grid doing the same through
// the same code; axe on the grid pages in both color schemes, 1440 and 390 px wide.
// Needs Debian's chromium at /usr/bin/chromium (driven by playwright-core, which never downloads one).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { checkGridPage, chromiumPresent, createOperationWithLines, itemLines, itemSku, startConsole, settled } from "./support/browser.mjs";

const TIMEOUT = { timeout: 180_000 };
const LINES = 200;
const sku = itemSku;
// The lines grid's columns, by place: Variant, Name, Min, Max, Recommended, Pack, Ordered (read-only).
const NAME = 1;
const MIN = 2;
const MAX = 3;
const REC = 4;

if (chromiumPresent("console grid test")) {
  let console_, page, api, baseUrl, operationId;

  const grid = () => page.getByRole("grid");
  const cell = (row, col) => page.locator(`#cell-${row}-${col}`);
  const cellText = async (row, col) => (await cell(row, col).textContent()).replace(" (unsaved)", "");
  const selectedCount = () => page.locator('[role="gridcell"][aria-selected="true"]').count();
  const said = (text) => page.getByRole("status").filter({ hasText: text }).first().waitFor();
  const press = async (key, times = 1) => {
    for (let i = 0; i < times; i++) await page.keyboard.press(key);
  };
  /** The active cell moved to (row, col) from the top left, by the keyboard. */
  const goTo = async (row, col) => {
    await grid().focus();
    await press("Control+Home");
    await press("Home");
    await press("ArrowDown", row);
    await press("ArrowRight", col);
  };
  const rowOf = async (variant) => {
    const id = await page.locator('[role="gridcell"][aria-colindex="1"]', { hasText: new RegExp(`^${variant}( \\(unsaved\\))?$`) }).getAttribute("id");
    return Number(id.split("-")[1]);
  };
  const rowsShown = (count) =>
    page.waitForFunction((expected) => document.querySelector('[role="grid"]')?.getAttribute("aria-rowcount") === String(expected), count + 1, {
      timeout: 30_000,
    });

  before(
    async () => {
      console_ = await startConsole({ tenant: "grid" });
      ({ api, baseUrl } = console_);
      operationId = await createOperationWithLines(api, { code: `GRID-${Date.now()}`, name: "Grid editing", lines: itemLines(LINES) });
      const rules = Array.from({ length: 5 }, (_, i) => ({ accountId: `GRID-A${i}`, supplierId: "GRID-S", minimum: 100 + i, enforcement: "BLOCK" }));
      assert.equal((await api("PUT", "/v1/buying-policies/quotas/rules", rules)).status, 200);
      await console_.browser.grantPermissions(["clipboard-read", "clipboard-write"], { origin: baseUrl });
      page = await console_.browser.newPage();
      await console_.signIn(page, console_.operatorKey, "OPERATOR");
      await page.goto(`${baseUrl}/console/operations/${operationId}`);
      await rowsShown(LINES);
    },
    { timeout: 240_000 },
  );

  after(async () => {
    await console_?.close();
  });

  describe("a grid that edits like a spreadsheet", () => {
    it("selects a block with Shift+arrows, copies it as TSV (Ctrl+C) and pastes it into a selection (Ctrl+V)", TIMEOUT, async () => {
      await goTo(0, MIN);
      for (const value of ["2", "3", "4"]) {
        await page.keyboard.type(value);
        await press("Enter");
      }
      await goTo(0, MIN);
      await press("Shift+ArrowDown", 2);
      await press("Shift+ArrowRight");
      assert.equal(await selectedCount(), 6);
      await page.getByText("6 cells selected").waitFor();
      await press("Control+c");
      await said("6 cells copied.");
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), "2\t10\n3\t10\n4\t10");

      // Pasted at another place: the block lands from the selection's first cell, and becomes the selection.
      await goTo(10, MIN);
      await press("Control+v");
      await said("3 rows pasted.");
      assert.deepEqual([await cellText(10, MIN), await cellText(11, MIN), await cellText(12, MIN)], ["2", "3", "4"]);
      assert.equal(await selectedCount(), 6);

      // One value pasted over a selection fills every cell of it.
      await page.evaluate(() => navigator.clipboard.writeText("8"));
      await goTo(13, MAX);
      await press("Shift+ArrowDown", 3);
      await press("Control+v");
      await said("4 cells pasted.");
      for (const row of [13, 14, 15, 16]) assert.equal(await cellText(row, MAX), "8");
      assert.equal(await cellText(17, MAX), "10");
    });

    it("fills down with Ctrl+D, and by dragging the selection's corner (the fill handle)", TIMEOUT, async () => {
      await goTo(20, MAX);
      await page.keyboard.type("12");
      await press("Enter");
      await goTo(20, MAX);
      await press("Shift+ArrowDown", 9);
      await press("Control+d");
      await said("9 cells filled.");
      for (const row of [21, 25, 29]) assert.equal(await cellText(row, MAX), "12");
      assert.equal(await cellText(30, MAX), "10");

      // The handle: drag it from the selection's corner down over five more rows.
      await cell(34, MAX).scrollIntoViewIfNeeded();
      const handle = page.locator(".fill-handle");
      const from = await handle.boundingBox();
      const to = await cell(34, MAX).boundingBox();
      await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
      await page.mouse.down();
      await page.mouse.move(to.x + to.width / 2, to.y + to.height / 2, { steps: 8 });
      await page.mouse.up();
      await said("5 cells filled.");
      for (const row of [30, 34]) assert.equal(await cellText(row, MAX), "12");
      assert.equal(await cellText(35, MAX), "10");
      assert.equal(await selectedCount(), 15, "the selection grew over the filled rows");

      // A drag over cells selects them.
      const start = await cell(40, MIN).boundingBox();
      const end = await cell(42, MAX).boundingBox();
      await page.mouse.move(start.x + 5, start.y + 5);
      await page.mouse.down();
      await page.mouse.move(end.x + 5, end.y + 5, { steps: 6 });
      await page.mouse.up();
      assert.equal(await selectedCount(), 6);
    });

    it("a drag held past the grid's edge scrolls it, and the selection (or the fill) goes on to the rows it brings in", TIMEOUT, async () => {
      const scrolledPast = (rows) => page.waitForFunction((top) => document.querySelector('[role="grid"]').scrollTop > top, rows * 34, { timeout: 30_000 });
      const selectedText = async () => Number((await page.getByText(/cells selected$/).textContent()).match(/([\d,]+) cells selected$/)[1].replaceAll(",", ""));
      await goTo(0, NAME);
      // The page scrolled so that there is room below the grid for the pointer.
      await grid().evaluate((element) => element.scrollIntoView({ block: "center" }));
      const box = await grid().boundingBox();
      assert.ok(box.y + box.height + 40 < page.viewportSize().height, "room below the grid");
      const start = await cell(0, NAME).boundingBox();
      await page.mouse.move(start.x + 5, start.y + 5);
      await page.mouse.down();
      await page.mouse.move(start.x + 5, box.y + box.height + 40, { steps: 5 });
      await scrolledPast(60);
      await page.mouse.up();
      const selected = await selectedText();
      assert.ok(selected > 60, `the selection followed the scroll: ${selected} rows`);
      // Released, the grid stays: no more scrolling, the selection as it was let go.
      const top = await grid().evaluate((element) => element.scrollTop);
      await page.waitForTimeout(300);
      assert.equal(await grid().evaluate((element) => element.scrollTop), top);
      assert.equal(await selectedText(), selected);

      // The fill handle, dragged below the edge from row 150: the rows brought in are filled, then undone.
      await goTo(150, MAX);
      await page.keyboard.type("9");
      await press("Enter");
      await goTo(150, MAX);
      await grid().evaluate((element) => element.scrollIntoView({ block: "center" }));
      const handle = await page.locator(".fill-handle").boundingBox();
      await page.mouse.move(handle.x + handle.width / 2, handle.y + handle.height / 2);
      await page.mouse.down();
      await page.mouse.move(handle.x + handle.width / 2, box.y + box.height + 40, { steps: 5 });
      await page.waitForFunction(() => {
        const element = document.querySelector('[role="grid"]');
        return element.scrollTop + element.clientHeight >= element.scrollHeight - 1;
      });
      await page.mouse.up();
      await said(`${LINES - 151} cells filled.`);
      assert.equal(await cellText(LINES - 1, MAX), "9");
      await press("Control+z");
      await press("Control+z");
      assert.equal(await cellText(150, MAX), "10");
    });

    it("clears with Delete or Space and cuts with Ctrl+X, while typing still edits; Ctrl+A selects every cell", TIMEOUT, async () => {
      await goTo(40, REC);
      await press("Shift+ArrowDown", 2);
      await press("Delete");
      await said("3 cells cleared.");
      for (const row of [40, 41, 42]) assert.equal(await cellText(row, REC), "");
      await goTo(43, REC);
      await press("Space");
      await said("1 cell cleared.");
      assert.equal(await cellText(43, REC), "");
      await goTo(44, REC);
      await page.keyboard.type("7");
      assert.equal(await page.getByRole("textbox", { name: "recommendedQuantity, row 45" }).inputValue(), "7");
      await press("Enter");
      assert.equal(await cellText(44, REC), "7");

      // Cut copies, then clears; Ctrl+A selects every cell.
      await goTo(45, REC);
      await press("Shift+ArrowDown");
      await press("Control+x");
      await said("2 cells cleared.");
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), "5\n5");
      assert.deepEqual([await cellText(45, REC), await cellText(46, REC)], ["", ""]);
      await press("Control+a");
      // Every cell of every column (the allocation columns too).
      const columns = await page.getByRole("grid").getByRole("columnheader").count();
      await page.getByText(`${(LINES * columns).toLocaleString("en")} cells selected`).waitFor();
    });

    it("finds and replaces within a column after previewing the cells it will change", TIMEOUT, async () => {
      await goTo(0, NAME);
      const open = page.getByRole("button", { name: "Find and replace" });
      await open.focus();
      await press("Enter");
      const panel = page.getByRole("region", { name: "Find and replace" });
      assert.equal(await panel.getByLabel("Column").inputValue(), "variantName", "the active cell's column");
      await page.keyboard.type("Item 1");
      await press("Tab");
      await page.keyboard.type("Article 1");
      // Item 1, Item 10–19 and Item 100–199.
      await said("111 cells of Name will change (the first 100 shown).");
      const preview = panel.getByRole("table", { name: "Cells a replace will change in Name" });
      assert.deepEqual(await preview.getByRole("row").nth(1).getByRole("cell").allInnerTexts(), ["2 · SKU-00001", "Item 1", "Article 1"]);
      await panel.getByLabel("Whole cell").check();
      await said("1 cell of Name will change.");
      await panel.getByLabel("Whole cell").uncheck();
      await panel.getByRole("button", { name: "Replace 111 cells" }).click();
      await said("111 cells replaced.");
      assert.equal(await cellText(1, NAME), "Article 1");
      assert.equal(await cellText(19, NAME), "Article 19");
      assert.equal(await cellText(2, NAME), "Item 2");
      await panel.getByRole("button", { name: "Close" }).click();
      assert.equal(await settled(page, () => document.activeElement?.getAttribute("role"), "grid"), "grid", "the grid has the focus back");
    });

    it("undoes and redoes (Ctrl+Z, Ctrl+Shift+Z, Ctrl+Y) across a sort and a search: edits are kept by row, not place", TIMEOUT, async () => {
      // Sorted the other way, the replace's rows stand elsewhere: undo still finds them.
      await page.getByLabel("Sort").selectOption({ label: "Variant ↓" });
      await page.waitForFunction(() => document.querySelector("#cell-0-0")?.textContent?.startsWith("SKU-00199"));
      await grid().focus();
      await press("Control+z");
      await said("Undone: Replace in Name (111 cells).");
      // The active cell went to the first row it changed, wherever the sort put it.
      assert.equal(await cellText(await rowOf(sku(1)), NAME), "Item 1");
      await press("Control+Home");
      assert.equal(await cellText(0, NAME), "Item 199");
      await press("Control+Shift+z");
      await said("Redone: Replace in Name (111 cells).");
      assert.equal(await cellText(await rowOf(sku(1)), NAME), "Article 1");
      await press("Control+Home");
      assert.equal(await cellText(0, NAME), "Article 199");

      // A search that hides every row the replace changed: it is undone and redone all the same.
      await page.getByLabel("Search variant or name").fill(sku(5));
      await rowsShown(1);
      await grid().focus();
      await press("Control+z");
      await said("Undone: Replace in Name (111 cells).");
      await press("Control+y");
      await said("Redone: Replace in Name (111 cells).");
      await page.getByText(/\d+ edited rows outside this view/).waitFor();
      await page.getByLabel("Search variant or name").fill("");
      await rowsShown(LINES);
      await page.getByLabel("Sort").selectOption({ label: "Variant ↑" });
      await page.waitForFunction(() => document.querySelector("#cell-0-0")?.textContent?.startsWith("SKU-00000"));
      await goTo(1, NAME);
      assert.equal(await cellText(1, NAME), "Article 1");
      await goTo(43, REC);
      assert.equal(await cellText(43, REC), "");
      assert.equal(await cellText(30, MAX), "12");
    });

    it("counts the unsaved cells and reviews each change from → to before Save", TIMEOUT, async () => {
      // Min of rows 0–2 and 10–12 (6), Max of 13–16 (4), 20–34 (15), Rec of 40–46 (7), Name (111).
      await page.getByText("143 unsaved cells").waitFor();
      // Discard asks nothing: it is one step of the undo history, and Ctrl+Z brings every edit back.
      await page.getByRole("button", { name: "Discard" }).click();
      await said(/^Discarded \d+ unsaved rows: Undo \(Ctrl\+Z\) brings them back\.$/);
      await page.getByText("0 unsaved cells").waitFor();
      await grid().focus();
      await press("Control+z");
      await said(/^Undone: Discard \(\d+ rows\)\.$/);
      await page.getByText("143 unsaved cells").waitFor();
      await page.getByRole("button", { name: "Review changes" }).click();
      const dialog = page.getByRole("dialog", { name: "Review changes" });
      await dialog.getByText("143 changed cells in").waitFor();
      const table = dialog.getByRole("table", { name: "Pending changes" });
      const row = table.getByRole("row").filter({ hasText: sku(20) });
      assert.deepEqual(await row.getByRole("cell").allInnerTexts(), [sku(20), "Max", "10", "12"]);
      await checkGridPage(page, "grid-review");
      await press("Escape");
      await dialog.waitFor({ state: "detached" });
      await page.getByRole("button", { name: "Save", exact: true }).click();
      await said("Saved: 0 created");
      const saved = (await api("GET", `/v1/operations/${operationId}/lines?variantIds=${sku(1)},${sku(20)},${sku(43)}`)).body.items;
      assert.deepEqual(
        saved.map((line) => [line.variantExternalId, line.variantName.en, line.maxQuantity, line.recommendedQuantity]),
        [
          [sku(1), "Article 1", 10, 5],
          [sku(20), "Item 20", 12, 5],
          [sku(43), "Item 43", 10, null],
        ],
      );
      await page.getByText("0 unsaved cells").waitFor();
      // What the last action did is said until the next edit: then it is old news, and goes.
      await goTo(5, MAX);
      await page.keyboard.type("13");
      await press("Enter");
      await page.getByText("1 unsaved cell").waitFor();
      await page.getByRole("status").filter({ hasText: "Saved: 0 created" }).waitFor({ state: "detached" });
      await goTo(5, MAX);
      await page.keyboard.type("10");
      await press("Enter");
      await page.getByText("0 unsaved cells").waitFor();
    });

    it("edits the rules grid with the same keys: fill down, undo, find and replace, review", TIMEOUT, async () => {
      await page.goto(`${baseUrl}/console/quota-rules?view=grid`);
      await rowsShown(5);
      const rules = page.getByRole("grid", { name: "Quota rules" });
      await rules.focus();
      // The active cell starts in Minimum.
      const last = await cellText(4, 3);
      await press("Shift+ArrowDown", 4);
      await press("Control+d");
      await said("4 cells filled.");
      assert.equal(await cellText(4, 3), await cellText(0, 3));
      await press("Control+z");
      await said("Undone: Fill down (4 cells).");
      assert.equal(await cellText(4, 3), last);
      await page.getByRole("button", { name: "Find and replace" }).click();
      const panel = page.getByRole("region", { name: "Find and replace" });
      await panel.getByLabel("Column").selectOption({ label: "Enforcement" });
      await panel.getByLabel("Find").fill("BLOCK");
      await panel.getByLabel("Replace with").fill("WARN");
      await said("5 cells of Enforcement will change.");
      await checkGridPage(page, "rules-grid-find");
      await panel.getByLabel("Replace with").press("Enter");
      await said("5 cells replaced.");
      await page.getByRole("button", { name: "Review changes" }).click();
      const dialog = page.getByRole("dialog", { name: "Review changes" });
      assert.equal(await dialog.getByRole("row").filter({ hasText: "WARN" }).count(), 5);
      await press("Escape");
      await page.getByRole("button", { name: "Discard" }).click();
    });

    it("passes axe with a selection and the find panel open on the lines grid, light and dark, 1440 and 390 px", TIMEOUT, async () => {
      await page.goto(`${baseUrl}/console/operations/${operationId}`);
      await rowsShown(LINES);
      await goTo(3, MIN);
      await press("Shift+ArrowDown", 3);
      await press("Shift+ArrowRight");
      await page.getByRole("button", { name: "Find and replace" }).click();
      await page.getByRole("region", { name: "Find and replace" }).getByLabel("Find").fill("Item 3");
      await checkGridPage(page, "grid-find");
    });
  });
}
