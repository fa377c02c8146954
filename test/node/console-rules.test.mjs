// The console's quota rules pages and simulator, driven in headless Chromium as a person would: the
// list with its filters, sort and paging; one rule's form (keyboard only) and its 409 duplicate_scope;
// the tenant default; many rules edited in the grid (keyboard and paste), a dry run first and the
// server's errors on their rows; CSV import and export; the simulator, whose browser-side answer (the
// server's resolution module, bundled) must equal the API's evaluate for random rule sets, and whose
// "what if" must equal the API's answer once the change is saved. Each page passes axe-core.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { checkPage, chromiumPresent, screenshot as shoot, startConsole } from "./support/browser.mjs";

const TIMEOUT = { timeout: 180_000 };
const RULES = "/v1/buying-policies/quotas/rules";

/** JSON with keys sorted, as the simulator writes its answers. */
const canonical = (value) =>
  JSON.stringify(value, (_, v) =>
    v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v,
  );

/** A small seeded generator: a failing run names its seed. */
function randomFrom(seed) {
  let state = seed >>> 0;
  const next = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  return { next, pick: (values) => values[Math.floor(next() * values.length)], chance: (p) => next() < p };
}

if (chromiumPresent("console rules test")) {
  let consoleServer, baseUrl, operatorKey, accountKey, page, signIn, api;

  const status = (text) => page.getByRole("status").filter({ hasText: text });
  const rowCount = async () => Number(await page.getByRole("grid").getAttribute("aria-rowcount"));
  const tableRows = () => page.locator("table.list tbody tr");
  const openRules = async () => {
    await page.getByRole("link", { name: "Quota rules", exact: true }).click();
    await page.getByRole("heading", { name: "Quota rules", level: 1 }).waitFor();
  };
  const put = async (rules) => {
    const answer = await api("PUT", RULES, rules);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer.body;
  };
  const listAll = async (query) => (await api("GET", `${RULES}?limit=500&${query}`)).body.items;
  const evaluate = async (order) => {
    const answer = await api("POST", "/v1/buying-policies/quotas/evaluate?explain=true", { orders: [order] });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer.body.results[0];
  };

  before(
    async () => {
      consoleServer = await startConsole({ tenant: "console-rules" });
      ({ baseUrl, operatorKey, accountKey, signIn, api } = consoleServer);
      page = await browser().newPage();
      await signIn(page, operatorKey, "OPERATOR");
    },
    { timeout: 240_000 },
  );
  const browser = () => consoleServer.browser;

  after(async () => {
    await consoleServer?.close();
  });

  describe("the quota rules pages", () => {
    it("lists the rules with the API's filters, sort and paging", TIMEOUT, async () => {
      await put(Array.from({ length: 60 }, (_, i) => ({ accountId: `LIST-A${i % 3}`, supplierId: `LIST-S${i}`, minimum: 100 * i })));
      await openRules();
      await tableRows().nth(49).waitFor();
      assert.equal(await tableRows().count(), 50, "one page of 50");
      await shoot(page, "rules-list");
      await page.getByRole("button", { name: "Load more" }).click();
      await tableRows().nth(59).waitFor();
      assert.equal(await page.getByRole("button", { name: "Load more" }).count(), 0);
      await checkPage(page, "rules list");

      await page.getByLabel("Account id").fill("LIST-A1");
      const expected = await listAll("accountId=LIST-A1");
      await page.waitForFunction((n) => document.querySelectorAll("table.list tbody tr").length === n, expected.length);
      assert.equal(expected.length, 20);
      assert.deepEqual(
        await tableRows().locator("td:first-child").allInnerTexts(),
        expected.map(() => "LIST-A1"),
      );
      await page.getByLabel("Sort").selectOption({ label: "Highest minimum" });
      const highest = Math.max(...expected.map((rule) => rule.minimum));
      await page.waitForFunction((text) => document.querySelector("table.list tbody tr td.num")?.textContent === text, String(highest));
      await page.getByLabel("Account id").fill("");
      await page.getByLabel("Sort").selectOption({ label: "Oldest first" });
    });

    it("creates a rule from the keyboard alone, edits it, refuses a duplicate scope on its field, and deletes it", TIMEOUT, async () => {
      await page.getByRole("link", { name: "New rule" }).focus();
      await page.keyboard.press("Enter");
      const form = page.getByRole("form", { name: "New rule" });
      await form.waitFor();
      await form.getByLabel("Account id").focus();
      await page.keyboard.type("FORM-A");
      await page.keyboard.press("Tab");
      await page.keyboard.type("FORM-S");
      await page.keyboard.press("Tab"); // Store id: empty, every store
      await page.keyboard.press("Tab");
      await page.keyboard.type("4200");
      await page.keyboard.press("Tab");
      await page.keyboard.press("ArrowDown"); // WARN
      await page.keyboard.press("Tab"); // Check impact
      await page.keyboard.press("Tab");
      await page.keyboard.press("Enter"); // Create
      await page.getByRole("heading", { name: "Rule: account FORM-A · supplier FORM-S · every store" }).waitFor();
      const ruleId = new URL(page.url()).pathname.split("/").pop();
      const stored = await api("GET", `${RULES}/${ruleId}`);
      assert.deepEqual(
        [stored.body.accountId, stored.body.supplierId, stored.body.storeId, stored.body.minimum, stored.body.enforcement],
        ["FORM-A", "FORM-S", null, 4200, "WARN"],
      );

      const edit = page.getByRole("form", { name: "Edit rule" });
      await edit.getByLabel("Minimum").fill("4800");
      await edit.getByLabel("Minimum").press("Enter");
      await status("Saved.").waitFor();
      assert.equal((await api("GET", `${RULES}/${ruleId}`)).body.minimum, 4800);

      await page.goto(`${baseUrl}/console/quota-rules/new`);
      const duplicate = page.getByRole("form", { name: "New rule" });
      await duplicate.getByLabel("Account id").fill("FORM-A");
      await duplicate.getByLabel("Supplier id").fill("FORM-S");
      await duplicate.getByLabel("Minimum").fill("1");
      await duplicate.getByRole("button", { name: "Create" }).click();
      const alert = page.getByRole("alert");
      await alert.waitFor();
      assert.match(await alert.innerText(), /409 duplicate_scope/);
      assert.equal(await duplicate.getByLabel("Account id").getAttribute("aria-invalid"), "true");
      assert.match(await page.locator("#rule-accountId-error").innerText(), /already exists/);
      await shoot(page, "rule-duplicate");
      await checkPage(page, "rule form with a 409");

      await page.goto(`${baseUrl}/console/quota-rules/${ruleId}`);
      await page.getByRole("button", { name: "Delete" }).click();
      const confirmation = page.getByRole("dialog", { name: "Delete the rule of account FORM-A · supplier FORM-S · every store?" });
      // The dialog checks what the deletion would do to the orders of the last 90 days (none here).
      await confirmation.getByText("Over the last 90 days: no order newly blocked, none newly allowed.").waitFor();
      await confirmation.getByRole("button", { name: "Cancel" }).waitFor();
      await page.keyboard.press("Escape");
      await confirmation.waitFor({ state: "detached" });
      assert.equal((await api("GET", `${RULES}/${ruleId}`)).status, 200, "Escape deletes nothing");
      await page.getByRole("button", { name: "Delete" }).click();
      await confirmation.getByRole("button", { name: "Delete" }).click();
      await page.getByRole("heading", { name: "Quota rules", level: 1 }).waitFor();
      assert.equal((await api("GET", `${RULES}/${ruleId}`)).status, 404);
    });

    it("reads and sets the tenant default", TIMEOUT, async () => {
      const form = page.getByRole("form", { name: "Tenant default" });
      await page.waitForFunction(() => document.querySelector('form[aria-label="Tenant default"] input')?.value === "0");
      await form.getByLabel("Default minimum").fill("700");
      await form.getByLabel("Default enforcement").selectOption("WARN");
      await form.getByRole("button", { name: "Save default" }).click();
      await status("Default saved: 700 (WARN).").waitFor();
      assert.deepEqual((await api("GET", "/v1/buying-policies/quotas/default")).body, { minimum: 700, enforcement: "WARN" });
      await form.getByLabel("Default minimum").fill("-1");
      await form.getByRole("button", { name: "Save default" }).click();
      await form.getByRole("alert").waitFor();
      assert.match(await form.getByRole("alert").innerText(), /validation_failed/);
      assert.equal((await api("GET", "/v1/buying-policies/quotas/default")).body.minimum, 700, "a refusal changes nothing");
    });

    it("edits many rules in the grid from the keyboard: a dry run first, the server's errors on their rows, then Apply", TIMEOUT, async () => {
      await put([1, 2, 3].map((i) => ({ accountId: "GRID-A", supplierId: `GRID-S${i}`, minimum: 1000 * i })));
      await page.getByLabel("Account id").fill("GRID-A");
      await page.getByRole("button", { name: "Edit in a grid" }).click();
      const grid = page.getByRole("grid", { name: "Quota rules" });
      await page.waitForFunction(() => document.querySelector('[role="grid"]')?.getAttribute("aria-rowcount") === "4");
      await grid.focus();
      // The active cell starts on the first row's minimum: typing edits it, Enter commits and moves down.
      await page.keyboard.type("1500");
      await page.keyboard.press("Enter");
      await page.keyboard.press("Enter");
      await page.keyboard.press("Control+a");
      await page.keyboard.type("x");
      await page.keyboard.press("Enter");
      assert.equal(await page.locator("#cell-1-3").getAttribute("aria-invalid"), "true");
      await page.keyboard.press("ArrowUp");
      await page.getByText("Row 2, Minimum (minor units): a whole number of minor units ≥ 0, such as 18000").waitFor();
      await page.keyboard.press("Enter");
      await page.keyboard.press("Control+a");
      await page.keyboard.type("2500");
      await page.keyboard.press("Enter");
      assert.equal(await page.locator("#cell-1-3").getAttribute("aria-invalid"), null);
      assert.equal(await page.locator("#cell-1-0").getAttribute("aria-readonly"), "true", "a stored rule's scope is its key");
      // Pasted from the last row's first cell: that row as it is, then two new rules of one scope past
      // the end, whose repeat the server refuses on its row.
      await page.keyboard.press("Control+End");
      for (let i = 0; i < 3; i++) await page.keyboard.press("ArrowLeft");
      await grid.evaluate((element, text) => {
        const data = new DataTransfer();
        data.setData("text/plain", text);
        element.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
      }, "GRID-A\tGRID-S3\t\t3000\tBLOCK\nGRID-A\tGRID-S9\t\t900\tWARN\nGRID-A\tGRID-S9\t\t950\tBLOCK");
      assert.equal(await rowCount(), 6);
      await page.getByRole("button", { name: "Check changes" }).click();
      // The grid's own refusal: the tenant default's, from the test before, is still on the page.
      await page.locator(".rules-grid-wrap").getByRole("alert").filter({ hasText: "validation_failed" }).waitFor();
      await page.waitForFunction(() => ["#cell-3-0", "#cell-4-0"].some((cell) => document.querySelector(cell)?.getAttribute("aria-invalid") === "true"));
      await shoot(page, "rules-grid-error");
      await page.locator("#cell-4-2").click();
      await page.keyboard.type("STORE-1");
      await page.keyboard.press("Enter");
      const before = await listAll("accountId=GRID-A");
      await page.getByRole("button", { name: "Check changes" }).click();
      await status("Dry run: 2 created, 2 updated, 0 unchanged. Nothing is saved yet.").waitFor();
      assert.deepEqual(await listAll("accountId=GRID-A"), before, "a dry run changes nothing");
      await checkPage(page, "rules grid");
      await page.getByRole("button", { name: "Apply" }).click();
      await status("Saved: 2 created, 2 updated, 0 unchanged.").waitFor();
      const after = await listAll("accountId=GRID-A");
      const bySupplierAndStore = (a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1);
      assert.deepEqual(
        after.map((rule) => [rule.supplierId, rule.storeId, rule.minimum, rule.enforcement]).sort(bySupplierAndStore),
        [
          ["GRID-S1", null, 1500, "BLOCK"],
          ["GRID-S2", null, 2500, "BLOCK"],
          ["GRID-S3", null, 3000, "BLOCK"],
          ["GRID-S9", null, 900, "WARN"],
          ["GRID-S9", "STORE-1", 950, "BLOCK"],
        ].sort(bySupplierAndStore),
      );
      await page.waitForFunction(() => document.querySelector('[role="grid"]')?.getAttribute("aria-rowcount") === "6");
      await shoot(page, "rules-grid");
    });

    it("imports rules from a CSV, a dry run first with the error on its row, and exports them", TIMEOUT, async () => {
      const rows = ["accountId,supplierId,storeId,minimum,enforcement", "CSV-A,CSV-S1,,1000,BLOCK", "CSV-A,CSV-S2,,-5,BLOCK"];
      await page.getByLabel("Import CSV").setInputFiles({ name: "bad.csv", mimeType: "text/csv", buffer: Buffer.from(rows.join("\n")) });
      const alert = page.getByRole("alert").filter({ hasText: "Row 3" });
      await alert.waitFor();
      await shoot(page, "rules-import-error");
      rows[2] = "CSV-A,CSV-S2,store-9,2000,WARN";
      await page.getByLabel("Import CSV").setInputFiles({ name: "rules.csv", mimeType: "text/csv", buffer: Buffer.from(rows.join("\n")) });
      const dryRun = status("Dry run of rules.csv: 2 created, 0 updated, 0 unchanged");
      await dryRun.waitFor();
      assert.equal((await listAll("accountId=CSV-A")).length, 0);
      await dryRun.getByRole("button", { name: "Apply" }).click();
      await status("Imported rules.csv: 2 created, 0 updated, 0 unchanged").waitFor();
      assert.equal((await listAll("accountId=CSV-A")).length, 2);

      await page.getByLabel("Account id").fill("CSV-A");
      // The file the browser saves is the API's CSV export of the filtered rules.
      const [exported] = await Promise.all([
        page.waitForResponse((response) => response.url().includes(`${RULES}?`) && response.request().headers().accept === "text/csv"),
        page.getByRole("button", { name: "Export CSV" }).click(),
      ]);
      assert.equal(exported.status(), 200);
      assert.match(new URL(exported.url()).search, /accountId=CSV-A/);
      const csv = (await exported.text()).trim().split(/\r?\n/);
      assert.equal(csv[0], "id,accountId,supplierId,storeId,minimum,enforcement");
      assert.equal(csv.length, 3, csv.join("\n"));
      assert.ok(
        csv.some((line) => line.endsWith(",CSV-A,CSV-S2,store-9,2000,WARN")),
        csv.join("\n"),
      );
    });
  });

  describe("the simulator", () => {
    const ACCOUNTS = ["A1", "A2", "A3"];
    const SUPPLIERS = ["S1", "S2", "S3"];
    const STORES = ["ST1", "ST2"];

    /** Fills the simulator's form and evaluates (keyboard: Enter submits). */
    const evaluateInUi = async (order) => {
      const form = page.getByRole("form", { name: "Order to evaluate" });
      await form.getByLabel("Account").fill(order.accountId);
      await form.getByLabel("Supplier").fill(order.supplierId ?? "");
      await form.getByLabel("Store").fill(order.storeId ?? "");
      await form.getByLabel("Amount").fill(String(order.amount));
      await form.getByLabel("Amount").press("Enter");
    };
    const simulatedEquals = (expected, what) =>
      page
        .waitForFunction((text) => document.querySelector("[data-simulated]")?.getAttribute("data-simulated") === text, canonical(expected), {
          timeout: 15_000,
        })
        .catch(async () =>
          assert.fail(
            `${what}\n browser: ${await page
              .locator("[data-simulated]")
              .getAttribute("data-simulated")
              .catch(() => "none")}\n     api: ${canonical(expected)}`,
          ),
        );

    it("answers as the API's evaluate does, for random rule sets and orders (property)", TIMEOUT, async () => {
      const seed = Number(process.env.SIMULATOR_SEED ?? Date.now() % 100000);
      const random = randomFrom(seed);
      for (let round = 0; round < 3; round++) {
        const ns = `P${seed}-${round}-`;
        const rules = [];
        const keys = [...ACCOUNTS.flatMap((a) => SUPPLIERS.map((s) => [a, s])), ...ACCOUNTS.map((a) => [a, null]), ...SUPPLIERS.map((s) => [null, s])];
        for (const [account, supplier] of keys) {
          for (const store of [null, ...STORES]) {
            if (random.chance(0.35))
              rules.push({
                accountId: account && ns + account,
                supplierId: supplier && ns + supplier,
                storeId: store,
                minimum: random.pick([0, 1000, 2000, 3000]),
                enforcement: random.pick(["BLOCK", "WARN"]),
              });
          }
        }
        if (rules.length) await put(rules);
        assert.equal(
          (await api("PUT", "/v1/buying-policies/quotas/default", { minimum: random.pick([0, 500, 1500]), enforcement: random.pick(["BLOCK", "WARN"]) }))
            .status,
          200,
        );
        // A fresh page: nothing the console cached before this round's rules.
        await page.goto(`${baseUrl}/console/quota-rules/simulator`);
        for (let i = 0; i < 8; i++) {
          const order = {
            accountId: ns + random.pick([...ACCOUNTS, "A9"]),
            supplierId: random.chance(0.8) ? ns + random.pick([...SUPPLIERS, "S9"]) : null,
            storeId: random.chance(0.7) ? random.pick([...STORES, "ST9"]) : null,
            amount: random.pick([0, 999, 1000, 1500, 2999, 5000]),
          };
          const expected = await evaluate(order);
          await evaluateInUi(order);
          await simulatedEquals(expected, `seed ${seed}, round ${round}, order ${JSON.stringify(order)}, rules ${JSON.stringify(rules)}`);
        }
      }
      await page.getByText("This browser's simulation, by the server's own resolution code, gives the API's answer.").waitFor();
    });

    it("draws the explanation level by level, each rule linking to its form", TIMEOUT, async () => {
      const [exact, ofAccount] = await Promise.all([
        api("POST", RULES, { accountId: "SIM-A", supplierId: "SIM-S", minimum: 5000 }),
        api("POST", RULES, { accountId: "SIM-A", minimum: 8000, enforcement: "BLOCK" }),
      ]);
      await api("POST", RULES, { accountId: "SIM-A", supplierId: "SIM-S", storeId: "OTHER", minimum: 9000 });
      await api("POST", RULES, { supplierId: "SIM-S", minimum: 100 });
      const order = { accountId: "SIM-A", supplierId: "SIM-S", storeId: null, amount: 6000 };
      await page.goto(`${baseUrl}/console/quota-rules/simulator`);
      await evaluateInUi(order);
      const answer = page.getByRole("region", { name: "API answer" });
      await answer.waitFor();
      await simulatedEquals(await evaluate(order), "the explained scenario");
      const text = await answer.textContent();
      for (const expected of [
        "Effective minimum",
        "5000",
        "Allowed",
        "Account + Supplier",
        "Account",
        "Supplier",
        "Tenant default",
        "Decides",
        "Other store",
        "Overruled",
      ])
        assert.ok(text.includes(expected), `${expected} in\n${text}`);
      assert.equal(await answer.locator("tr.outcome-selected").count(), 1);
      await shoot(page, "simulator");
      await checkPage(page, "simulator");
      await answer.getByRole("link", { name: "account SIM-A · any supplier · every store" }).click();
      await page.getByRole("heading", { name: "Rule: account SIM-A · any supplier · every store" }).waitFor();
      assert.equal(await page.getByRole("form", { name: "Edit rule" }).getByLabel("Minimum").inputValue(), "8000");
      assert.equal(new URL(page.url()).pathname, `/console/quota-rules/${ofAccount.body.id}`);
      assert.ok(exact.body.id);
    });

    it("'what if' shows a change's outcome before saving, and it is the API's answer once saved", TIMEOUT, async () => {
      const order = { accountId: "SIM-A", supplierId: "SIM-S", storeId: null, amount: 6000 };
      await page.goto(`${baseUrl}/console/quota-rules/simulator?accountId=SIM-A&supplierId=SIM-S`);
      await evaluateInUi(order);
      await page.getByRole("region", { name: "API answer" }).waitFor();
      const ruleId = (await evaluate(order)).source.ruleId;
      await page.getByLabel("What if: try other minimums before saving").check();
      await page.getByText("simulated in this browser against your unsaved minimums, by the server's own resolution code").waitFor();
      await page.getByLabel(`What-if minimum of ${ruleId}`).fill("7000");
      const simulated = page.getByRole("region", { name: "Simulated answer" });
      await simulated.getByText("Blocked").waitFor();
      const whatIf = JSON.parse(await simulated.getAttribute("data-result"));
      assert.deepEqual([whatIf.allowed, whatIf.effectiveMinimum, whatIf.shortfall, whatIf.source.ruleId], [false, 7000, 1000, ruleId]);
      assert.equal((await evaluate(order)).effectiveMinimum, 5000, "nothing is saved before Save");
      await shoot(page, "simulator-what-if");
      await checkPage(page, "simulator what if");
      await page.getByRole("button", { name: "Save 1 changed minimum" }).click();
      await status("Saved 1 rule").waitFor();
      const saved = await evaluate(order);
      assert.equal(canonical(saved), canonical(whatIf), "the what-if answer is the API's answer after saving");
      await page.waitForFunction((text) => document.querySelector('[aria-label="API answer"]')?.getAttribute("data-result") === text, canonical(saved));
    });

    it("shows an ACCOUNT key that quota rules are for OPERATOR keys", TIMEOUT, async () => {
      const accountPage = await browser().newPage();
      try {
        await signIn(accountPage, accountKey, "ACCOUNT");
        assert.equal(await accountPage.getByRole("link", { name: "Quota rules", exact: true }).count(), 0, "not in an ACCOUNT key's menu");
        for (const path of ["/console/quota-rules", "/console/quota-rules/simulator"]) {
          await accountPage.goto(`${baseUrl}${path}`);
          await accountPage.getByText("This page is for OPERATOR keys: an ACCOUNT key cannot use it.").waitFor();
        }
        assert.equal(await accountPage.getByRole("link", { name: "New rule" }).count(), 0);
        await checkPage(accountPage, "rules page, ACCOUNT key");
      } finally {
        await accountPage.close();
      }
    });
  });
}
