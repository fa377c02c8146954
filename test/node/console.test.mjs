// The console at /console, driven in headless Chromium as a person would: sign in, create an
// Operation, paste 5000 lines and save them, see them after a reload, fix a bound error on its cell,
// import a CSV whose row 7 is wrong, activate (only Pool and Per account still edit), and an ACCOUNT key's view.
// Needs Debian's chromium at /usr/bin/chromium (driven by playwright-core, which never downloads one).
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import { chromiumPresent, screenshot as shoot, startConsole } from "./support/browser.mjs";

const TIMEOUT = { timeout: 120_000 };
const LINES = 5000;

/** A spreadsheet block: variantExternalId, name, min, max, recommended, tab-separated. */
const block = (count) => Array.from({ length: count }, (_, i) => `SKU-${String(i).padStart(5, "0")}\tItem ${i}\t1\t10\t5`).join("\n");

if (chromiumPresent("console test")) {
  let consoleServer, server, browser, operatorKey, accountKey, page, signIn, api;
  const code = `CONSOLE-${Date.now()}`;

  const grid = () => page.getByRole("grid");
  const cell = (row, col) => page.locator(`#cell-${row}-${col}`);
  const rowsLoaded = (lines) =>
    page.waitForFunction((expected) => document.querySelector('[role="grid"]')?.getAttribute("aria-rowcount") === String(expected), lines + 1, {
      timeout: 30_000,
    });
  const rowCount = async () => Number(await grid().getAttribute("aria-rowcount"));
  const status = (text) => page.getByRole("status").filter({ hasText: text });

  before(
    async () => {
      consoleServer = await startConsole({ tenant: "console" });
      ({ server, browser, operatorKey, accountKey, signIn, api } = consoleServer);
      page = await browser.newPage();
    },
    { timeout: 240_000 },
  );

  after(async () => {
    await consoleServer?.close();
  });

  describe("the console", () => {
    it("serves its page on any /console path and keeps the key out of the URL", TIMEOUT, async () => {
      const deep = await fetch(`${server.baseUrl}/console/operations/anything`);
      assert.equal(deep.status, 200);
      assert.match(await deep.text(), /<div id="root">/);
      const missingAsset = await fetch(`${server.baseUrl}/console/assets/missing.js`);
      assert.equal(missingAsset.status, 404);
      await missingAsset.arrayBuffer();
    });

    it("refuses a wrong key with the API's problem detail", TIMEOUT, async () => {
      await page.goto(`${server.baseUrl}/console`);
      await page.getByLabel("API key").fill("not-a-key");
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("alert").waitFor();
      await shoot(page, "signin");
      assert.match(await page.getByRole("alert").innerText(), /unauthorized/);
    });

    it("signs in, creates an Operation with names per locale, and opens it", TIMEOUT, async () => {
      await signIn(page, operatorKey, "OPERATOR");
      assert.ok(!page.url().includes(operatorKey));
      for (const name of ["Operations", "Quota rules", "Accounts", "Events", "Webhooks", "Keys"]) await page.getByRole("link", { name, exact: true }).waitFor();
      await page.getByRole("button", { name: "New Operation" }).click();
      await shoot(page, "operations");
      const form = page.getByRole("form", { name: "New Operation" });
      await form.getByLabel("Code").fill(code);
      await form.getByLabel("Start date").fill("2098-01-01");
      await form.getByLabel("End date").fill("2098-12-31");
      await form.getByLabel("Name (en)").fill("Console spring");
      await form.getByLabel("Name (fr)").fill("Printemps console");
      await form.getByRole("button", { name: "Create" }).click();
      await page.getByRole("heading", { name: code }).waitFor();
      assert.equal(await rowCount(), 1, "a new Operation has no lines: the header row only");
    });

    it("pastes 5000 lines from a spreadsheet, saves them (a dry run, then one PUT), and shows them after a reload", TIMEOUT, async () => {
      await grid().focus();
      await grid().evaluate((element, text) => {
        const data = new DataTransfer();
        data.setData("text/plain", text);
        element.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
      }, block(LINES));
      assert.equal(await rowCount(), LINES + 1);
      assert.ok((await page.locator('[role="grid"] [role="row"]').count()) <= 200, "the grid is virtualized");
      const puts = [];
      page.on("request", (request) => request.method() === "PUT" && puts.push(request.url()));
      await page.getByRole("button", { name: "Save" }).click();
      await status(`Saved: ${LINES.toLocaleString("en")} created, 0 updated.`).waitFor();
      assert.deepEqual(
        puts.map((url) => new URL(url).searchParams.get("dryRun")),
        ["true", "false"],
      );
      await page.reload();
      await page.getByRole("heading", { name: code }).waitFor();
      await rowsLoaded(LINES);
      assert.equal(await rowCount(), LINES + 1);
      assert.equal(await cell(0, 0).innerText(), "SKU-00000");
      await shoot(page, "grid");
    });

    it("shows a bound error on the cell as it is typed, by the server's rules, and saves once fixed", TIMEOUT, async () => {
      await cell(2, 1).click();
      await grid().press("ArrowRight"); // minQuantity of row 3
      await grid().press("Enter");
      const editor = page.getByRole("textbox", { name: "minQuantity, row 3" });
      await editor.fill("50");
      // In the grid's words (its columns say Min and Max), not the API's field names.
      await page.getByText("Row 3, Min: Min 50 is greater than Max 10").waitFor();
      await editor.press("Escape");
      assert.equal(await cell(2, 2).innerText(), "1", "Escape cancels the edit");
      await grid().press("Enter");
      await editor.fill("50");
      await editor.press("Enter");
      assert.equal(await cell(2, 2).getAttribute("aria-invalid"), "true");
      assert.equal(await cell(2, 3).getAttribute("aria-invalid"), "true");
      await shoot(page, "bound-error");
      await page.getByRole("button", { name: "Save" }).click();
      await status("Not saved: fix this row first. SKU-00002 (row 3): Min 50 is greater than Max 10; Recommended 5 is outside [50, 10].").waitFor();
      await cell(2, 2).click();
      await grid().press("Enter");
      await editor.fill("7");
      await page.getByText("Row 3, Recommended: Recommended 5 is outside [7, 10]").waitFor();
      await editor.fill("4");
      await editor.press("Enter");
      assert.equal(await cell(2, 2).getAttribute("aria-invalid"), null);
      assert.equal(await cell(2, 3).getAttribute("aria-invalid"), null);
      await page.getByRole("button", { name: "Save" }).click();
      await status("Saved: 0 created, 1 updated.").waitFor();
    });

    it("imports a CSV as a dry run first and shows the error on its CSV row", TIMEOUT, async () => {
      const rows = ["variantExternalId,variantName,minQuantity,maxQuantity,recommendedQuantity"];
      for (let i = 0; i < 5; i++) rows.push(`NEW-${i},New ${i},1,5,2`);
      rows.push("NEW-BAD,Broken,9,3,"); // the file's row 7
      await page.getByLabel("Import CSV").setInputFiles({ name: "lines.csv", mimeType: "text/csv", buffer: Buffer.from(rows.join("\n")) });
      const alert = page.getByRole("alert").filter({ hasText: "Row 7" });
      await alert.waitFor();
      assert.match(await alert.innerText(), /Row 7: .*minQuantity 9 is greater than maxQuantity 3/);
      await shoot(page, "import-error");

      rows.pop();
      await page.getByLabel("Import CSV").setInputFiles({ name: "good.csv", mimeType: "text/csv", buffer: Buffer.from(rows.join("\n")) });
      await status("Dry run of good.csv: 5 created, 0 updated").waitFor();
      await page.getByRole("button", { name: "Apply" }).click();
      await status("Imported good.csv: 5 created, 0 updated").waitFor();
      await rowsLoaded(LINES + 5);
    });

    it("activates the Operation and the grid keeps only Pool and Per account editable, with the reason", TIMEOUT, async () => {
      await page.getByRole("button", { name: "Activate", exact: true }).click();
      await page.getByText("This Operation is ACTIVE: only Pool and Per account change now").waitFor();
      await shoot(page, "active");
      assert.equal(await grid().getAttribute("aria-readonly"), null, "its pools still edit");
      // The banner can show a render before the grid's cells take the new status in (a loaded machine).
      await page
        .locator('#cell-0-2[aria-readonly="true"]')
        .waitFor({ timeout: 10_000 })
        .catch(() => {});
      assert.equal(await cell(0, 2).getAttribute("aria-readonly"), "true", "Min does not");
      assert.equal(await page.getByRole("button", { name: "Add line" }).count(), 0);
      assert.equal(await page.getByLabel("Import CSV").count(), 0);
      await cell(0, 2).click();
      await grid().press("Enter");
      assert.equal(await page.getByRole("textbox", { name: "minQuantity, row 1" }).count(), 0, "Enter edits nothing");
      // The grid is described by what is read-only and why, then by its help, which names only what edits.
      const [reason, help] = await grid().evaluate((element) =>
        element
          .getAttribute("aria-describedby")
          .split(" ")
          .map((id) => document.getElementById(id).textContent),
      );
      assert.match(reason, /This Operation is ACTIVE: only Pool and Per account change now/);
      assert.match(help, /^Arrow keys move · Enter edits Pool or Per account/);
      // Its lines still export, as the API streams them.
      const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export CSV" }).click()]);
      const exported = (await readFile(await download.path(), "utf8")).trimEnd().split("\r\n");
      assert.equal(exported.length, LINES + 5 + 1);
      assert.equal(exported[0], "variantExternalId,variantName,minQuantity,maxQuantity,recommendedQuantity,quantityIncrement");
      assert.equal(exported[1], "NEW-0,New 0,1,5,2,1");
      assert.ok(await page.getByRole("button", { name: "Deactivate" }).isEnabled());
      assert.ok(await page.getByRole("button", { name: "Back to draft" }).isEnabled());
    });

    it("answers a 412 on a status button with what changed while its live connection was down, and reloads", TIMEOUT, async () => {
      const operationId = new URL(page.url()).pathname.split("/").pop();
      // With its live connection up the page would take the change in (and meet no 412): it is kept down.
      let liveDown = true;
      await page.routeWebSocket(/\/live\?/, (socket) => (liveDown ? socket.close({ code: 1011, reason: "kept down by the test" }) : socket.connectToServer()));
      await page.reload();
      await page.locator(".live-state", { hasText: "Reconnecting…" }).waitFor();
      const changed = await api("PATCH", `/v1/operations/${operationId}`, { name: { de: "Konsole" } });
      assert.equal(changed.status, 200);
      await page.getByRole("button", { name: "Deactivate" }).click();
      await page
        .getByRole("dialog", { name: `Deactivate ${code}?` })
        .getByRole("button", { name: "Deactivate" })
        .click();
      const alert = page.getByRole("alert").filter({ hasText: "Changed since you loaded it" });
      await alert.waitFor();
      assert.match(await alert.innerText(), /version_mismatch|412/);
      assert.match(await alert.innerText(), /Changed since you loaded it: .*name/);
      await alert.getByRole("button", { name: "Reload" }).click();
      await alert.waitFor({ state: "detached" });
      await page.getByText("version 6").waitFor();
      liveDown = false;
      await page.locator(".live-state", { hasText: /^Live$/ }).waitFor({ timeout: 60_000 });
    });

    it("attaches accounts of a PRIVATE Operation from the directory and detaches them, each after a dry run", TIMEOUT, async () => {
      assert.equal(
        (
          await api("PUT", "/v1/accounts", [
            { accountId: "ACC-CONSOLE-1", name: "Console Traders" },
            { accountId: "ACC-CONSOLE-2", name: "Other Shop" },
          ])
        ).status,
        200,
      );
      const created = await api("POST", "/v1/operations", {
        code: `${code}-P`,
        name: { en: "Private one" },
        type: "PRIVATE",
        startDate: "2098-01-01T00:00:00Z",
        endDate: "2098-12-31T00:00:00Z",
      });
      await page.goto(`${server.baseUrl}/console/operations/${created.body.id}`);
      await page.getByRole("heading", { name: /^Accounts/ }).waitFor();
      await page.getByLabel("Find accounts in the directory").fill("Console");
      await page.getByRole("button", { name: "Attach ACC-CONSOLE-1" }).click();
      await status("Dry run: 1 to attach, 0 already attached, 1 account after").waitFor();
      await page.getByRole("button", { name: "Attach", exact: true }).click();
      await page.getByRole("cell", { name: "ACC-CONSOLE-1", exact: true }).waitFor();
      await page.getByLabel("Select ACC-CONSOLE-1").check();
      await page.getByRole("button", { name: "Detach selected (1)" }).click();
      await status("Dry run: 1 to detach, 0 accounts after").waitFor();
      await page.getByRole("button", { name: "Detach", exact: true }).click();
      await page.getByText("No attached account matches.").waitFor();
    });

    it("shows an ACCOUNT key only what it may do, and its refusals with their detail", TIMEOUT, async () => {
      // A tab of its own: sessionStorage is per tab, so this one starts signed out.
      const accountPage = await browser.newPage();
      try {
        await signIn(accountPage, accountKey, "ACCOUNT");
        assert.equal(await accountPage.getByRole("button", { name: "New Operation" }).count(), 0);
        await accountPage.goto(`${server.baseUrl}/console/operations/op_missing`);
        const alert = accountPage.getByRole("alert");
        await alert.waitFor();
        assert.match(await alert.innerText(), /not_found/);
        await accountPage.getByRole("link", { name: "Operations", exact: true }).click();
        await accountPage.getByRole("link", { name: code, exact: true }).click();
        await accountPage.getByRole("heading", { name: code }).waitFor();
        await accountPage.getByText("Read-only: an ACCOUNT key reads lines").waitFor();
        for (const name of ["Activate", "Deactivate", "Back to draft", "Save", "Account caps", "Plan allocation"])
          assert.equal(await accountPage.getByRole("button", { name }).count(), 0, name);
        // Nothing edits: reading starts at Min, as in any read-only grid (not at Pool, where an OPERATOR's ACTIVE grid starts).
        await accountPage.locator("[role=grid][aria-activedescendant]").waitFor();
        assert.equal(await accountPage.getByRole("grid").getAttribute("aria-activedescendant"), "cell-0-2");
      } finally {
        await shoot(accountPage, "account");
        await accountPage.close();
      }
    });
  });
}
