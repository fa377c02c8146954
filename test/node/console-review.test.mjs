// The console's part 3 beside its history (console-history.test.mjs), in headless Chromium as a person
// would: impact before saving (a rule's form, the tenant default, the rules grid), amounts in the
// tenant's currency, resources by their names (Events by Operation code, actors by key name, event
// data opened in place), the key you are signed in with marked and not revocable from its own tab, a
// failing delivery on its subscription's row and redelivered, labels holding names only, filters in
// the address (a link and Back reproduce a view), and approvals on an Operation's page.
// Needs Debian's chromium at /usr/bin/chromium (driven by playwright-core, which never downloads one).
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { after, before, describe, it } from "node:test";
import { checkPage, chromiumPresent, startConsole } from "./support/browser.mjs";

const TIMEOUT = { timeout: 180_000 };
const RULES = "/v1/buying-policies/quotas/rules";

if (chromiumPresent("console review test")) {
  let server, page, api, baseUrl, activeId, receiver, receiverUrl;
  const code = `REV-${Date.now()}`;
  const status = (text) => page.getByRole("status").filter({ hasText: text });
  /**
   * What a test starts from, set through the API whatever ran before it, so any one test runs alone:
   * ACC-R1's rule for SUP-R at `minimum`, the tenant's display currency.
   */
  const given = async ({ minimum, currency }) => {
    if (minimum !== undefined) {
      const upserted = await api("PUT", RULES, [{ accountId: "ACC-R1", supplierId: "SUP-R", storeId: null, minimum }]);
      assert.equal(upserted.status, 200, JSON.stringify(upserted.body));
    }
    if (currency !== undefined) assert.equal((await api("PUT", "/v1/settings/display", { currency })).status, 200);
  };
  /** Holds the answers to `pattern` (a slow network) until `release()`; `done()` lets them through again. */
  const hold = async (pattern) => {
    let release;
    const held = new Promise((resolve) => {
      release = resolve;
    });
    await page.route(pattern, async (route) => {
      await held;
      await route.continue();
    });
    const done = async () => {
      release();
      await page.unroute(pattern);
    };
    return { release, done };
  };
  const go = async (label) => {
    await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: label, exact: true }).click();
    await page.getByRole("heading", { level: 1, name: label }).waitFor();
  };

  before(
    async () => {
      // A receiver that is down: every delivery fails (one retry, then failed: WEBHOOK_RETRY_DELAYS=0).
      receiver = createServer((request, response) => {
        request.resume();
        response.writeHead(503).end("down");
      });
      await new Promise((resolve) => receiver.listen(0, "127.0.0.1", resolve));
      receiverUrl = `http://127.0.0.1:${receiver.address().port}/hooks`;
      server = await startConsole({ tenant: "review", vars: { WEBHOOKS_ALLOW_LOCAL: "on", WEBHOOK_RETRY_DELAYS: "0" } });
      ({ api, baseUrl } = server);

      // Orders of the last 90 days for impact: ACC-R1 orders 150.00 (15000) from SUP-R twice, ACC-R2 once 90.00.
      assert.equal(
        (
          await api("PUT", "/v1/accounts", [
            { accountId: "ACC-R1", name: "Rue One" },
            { accountId: "ACC-R2", name: "Rue Two" },
          ])
        ).status,
        200,
      );
      const created = await api("POST", "/v1/operations", {
        code,
        name: { en: "Review spring" },
        type: "PUBLIC",
        startDate: "2020-01-01T00:00:00Z",
        endDate: "2099-12-31T00:00:00Z",
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      activeId = created.body.id;
      assert.equal((await api("PUT", `/v1/operations/${activeId}/lines`, [{ variantExternalId: "SKU-R", minQuantity: 0, maxQuantity: 100 }])).status, 200);
      assert.equal((await api("POST", `/v1/operations/${activeId}/status`, { status: "ACTIVE" })).status, 200);
      const order = (accountId, quantity) => ({
        operationId: activeId,
        accountId,
        lines: [{ variantExternalId: "SKU-R", quantity, unitPrice: 1000, supplierId: "SUP-R" }],
      });
      for (const [accountId, quantity] of [
        ["ACC-R1", 15],
        ["ACC-R1", 15],
        ["ACC-R2", 9],
      ]) {
        const placed = await api("POST", "/v1/orders", order(accountId, quantity));
        assert.equal(placed.status, 201, JSON.stringify(placed.body));
      }
      page = await server.browser.newPage();
      await server.signIn(page, server.operatorKey, "OPERATOR");
    },
    { timeout: 240_000 },
  );

  after(async () => {
    await server?.close();
    receiver?.close();
  });

  describe("impact before saving", () => {
    it("a rule's form: Check impact (from the keyboard) shows the Impact region, and the save button says what it will do", TIMEOUT, async () => {
      await given({ currency: null });
      await page.goto(`${baseUrl}/console/quota-rules/new`);
      const form = page.getByRole("form", { name: "New rule" });
      await form.getByLabel("Account id").fill("ACC-R1");
      await form.getByLabel("Supplier id").fill("SUP-R");
      await form.getByLabel("Minimum").fill("20000");
      await form.getByRole("button", { name: "Check impact" }).focus();
      await page.keyboard.press("Enter");
      const impact = page.getByRole("region", { name: "Impact" });
      await impact.waitFor();
      assert.match(await impact.innerText(), /Newly blocked\s+2/);
      assert.match(await impact.innerText(), /Orders considered\s+3/);
      const accounts = impact.getByRole("table", { name: "Accounts affected" });
      // The account's name comes from the directory, a read of its own that may land after the region shows.
      await accounts.getByRole("link", { name: "Rue One, ACC-R1" }).waitFor();
      assert.equal(await accounts.getByRole("link", { name: "Rue One, ACC-R1" }).count(), 1, "each account links to it, by its name");
      assert.equal(await accounts.locator("tbody tr").count(), 1);
      // The orders were placed without a store: said as such, not as a rule's "no store" against its "every store".
      assert.match(await accounts.locator("tbody tr").innerText(), /SUP-R\s+none\s+2/);
      await impact.getByText(/"none": orders placed without one, which rules for any supplier or every store cover/).waitFor();
      const save = form.getByRole("button", { name: "Create (2 orders newly blocked, none newly allowed)" });
      await save.waitFor();
      await checkPage(page, "rule-impact");
      // A value changed since the check: the button no longer claims it, the region says to check again.
      await form.getByLabel("Minimum").fill("10000");
      await form.getByRole("button", { name: "Create", exact: true }).waitFor();
      await impact.getByText("The values changed since this check").waitFor();
      await form.getByRole("button", { name: "Check impact" }).click();
      await form.getByRole("button", { name: "Create (no order newly blocked, none newly allowed)" }).click();
      await page.getByRole("heading", { name: "Rule: account Rue One, ACC-R1 · supplier SUP-R · every store" }).waitFor();
    });

    it("the tenant default and the rules grid check their impact too", TIMEOUT, async () => {
      await given({ minimum: 10000, currency: null });
      await page.goto(`${baseUrl}/console/quota-rules`);
      const defaults = page.getByRole("form", { name: "Tenant default" });
      await defaults.getByLabel("Default minimum").fill("10000");
      await defaults.getByRole("button", { name: "Check impact" }).click();
      await defaults.getByRole("region", { name: "Impact" }).getByRole("table", { name: "Accounts affected" }).getByRole("link", { name: "ACC-R2" }).waitFor();
      // ACC-R2's 90.00 order falls under the default of 100.00 (ACC-R1 has its rule).
      await defaults.getByRole("button", { name: "Save default (1 order newly blocked, none newly allowed)" }).waitFor();
      await defaults.getByLabel("Default minimum").fill("0");

      await page.getByRole("button", { name: "Edit in a grid" }).click();
      const grid = page.getByRole("grid", { name: "Quota rules" });
      await grid.waitFor();
      await grid.getByRole("gridcell", { name: "10000" }).click();
      await page.keyboard.type("5000");
      await page.keyboard.press("Enter");
      await page.getByRole("button", { name: "Check impact" }).last().click();
      const impact = page.getByRole("region", { name: "Impact" }).last();
      await impact.getByText("Impact of this edit").waitFor();
      assert.match(await impact.innerText(), /Newly allowed\s+0/);
      await page.getByRole("button", { name: "Discard" }).click();
    });
  });

  describe("human names and shared views", () => {
    it("shows amounts in major units once the tenant's currency is set (Settings), and takes them so", TIMEOUT, async () => {
      await given({ minimum: 10000, currency: null });
      // Without a currency, the rules page says amounts are minor units and where the currency is set.
      await go("Quota rules");
      const note = page.locator(".currency-note");
      await note.getByText("Amounts are in minor units").waitFor();
      await note.getByRole("link", { name: "Settings" }).click();
      await page.getByRole("heading", { level: 1, name: "Settings" }).waitFor();
      await page.getByLabel("Currency").selectOption("EUR");
      await page.getByText("18000 is shown as €180.00").waitFor();
      await page.getByRole("button", { name: "Save currency" }).click();
      await status("Currency saved.").waitFor();
      assert.deepEqual((await api("GET", "/v1/settings/display")).body, { currency: "EUR" });
      await checkPage(page, "settings");

      await go("Quota rules");
      assert.equal(await page.locator(".currency-note").count(), 0, "no note once the currency is set");
      const rules = page.getByRole("table", { name: "Quota rules" });
      await rules.getByText("€100.00").waitFor();
      // Accounts by their names and ids.
      await rules.getByRole("cell", { name: "Rue One, ACC-R1", exact: true }).waitFor();
      await rules.getByRole("link", { name: "Edit the rule of account Rue One, ACC-R1 · supplier SUP-R · every store" }).click();
      const form = page.getByRole("form", { name: "Edit rule" });
      assert.equal(await form.getByLabel("Minimum").inputValue(), "100.00");
      assert.equal(await form.getByRole("textbox", { name: "Minimum" }).getAttribute("aria-describedby"), "rule-minimum-hint");
      // The account id's hint names it (the field described by it).
      await form.locator("#rule-accountId-hint").getByText("Rue One", { exact: true }).waitFor();
      assert.equal(await form.getByLabel("Account id").getAttribute("aria-describedby"), "rule-accountId-hint");
      await form.getByLabel("Minimum").fill("120.50");
      await form.getByRole("button", { name: "Check impact" }).click();
      await form.getByRole("button", { name: /^Save \(/ }).waitFor();
      await form.getByLabel("Minimum").press("Enter");
      await status("Saved.").waitFor();
      // Saved: the impact checked was of the change now made, so neither the region nor the button claims it any more.
      await form.getByRole("button", { name: "Save", exact: true }).waitFor();
      assert.equal(await form.getByRole("region", { name: "Impact" }).count(), 0);
      const [rule] = (await api("GET", `${RULES}?accountId=ACC-R1`)).body.items;
      assert.equal(rule.minimum, 12050);
      // Its change reads in euros too.
      await page.goto(`${baseUrl}/console/changes?kind=rule`);
      await page.getByRole("table", { name: "Changes" }).getByText("Minimum €100.00 → €120.50").waitFor();
    });

    it("the simulator's fields are named by their labels only, hints describe them; outcomes in words", TIMEOUT, async () => {
      await given({ minimum: 12050, currency: "EUR" });
      await page.goto(`${baseUrl}/console/quota-rules/simulator`);
      const form = page.getByRole("form", { name: "Order to evaluate" });
      await form.waitFor();
      const supplier = form.getByRole("textbox", { name: "Supplier", exact: true });
      assert.equal(await supplier.count(), 1, "the supplier field's name is Supplier, not Supplierempty: no supplier");
      assert.equal(
        await supplier.evaluate(
          (input) => input.ariaDescribedByElements?.[0]?.textContent ?? document.getElementById(input.getAttribute("aria-describedby")).textContent,
        ),
        "Empty: no supplier",
      );
      await form.getByLabel("Account").fill("ACC-R1");
      await page.locator("#sim-account-help").getByText("Rue One").waitFor();
      await supplier.fill("SUP-R");
      await form.getByRole("textbox", { name: "Amount", exact: true }).fill("100");
      await form.getByRole("textbox", { name: "Amount", exact: true }).press("Enter");
      const answer = page.getByRole("region", { name: "API answer" });
      await answer.waitFor();
      // Rules are named by their scope once read.
      await page.waitForFunction(() => !document.querySelector('[aria-label="API answer"]').innerText.includes("qr_"));
      const text = await answer.innerText();
      assert.match(text, /Effective minimum\s+€120\.50/i);
      assert.match(text, /Shortfall\s+€20\.50/i);
      assert.match(text, /Decides/);
      assert.doesNotMatch(text, /shadowed_by_higher_level|qr_/, "outcome codes as words, rules by their scope");
      assert.match(text, /account Rue One, ACC-R1 · supplier SUP-R · every store/, "a rule's account by its name");
      await page.getByLabel("What if: try other minimums before saving").check();
      assert.doesNotMatch(await page.locator(".what-if-note").innerText(), /\.ts\b|src\//, "no source file named to the user");
      await page.getByLabel("What if: try other minimums before saving").uncheck();
      await checkPage(page, "simulator-names");
    });

    it("takes no amount before the currency is known: a slow settings answer cannot turn €100 into 100 cents", TIMEOUT, async () => {
      await given({ minimum: 12050, currency: "EUR" });
      // The display settings answer late (a slow network); a person types at once.
      const settings = await hold("**/v1/settings/display");
      const evaluated = [];
      page.on("request", (request) => {
        if (request.url().includes("/quotas/evaluate")) evaluated.push(request.postDataJSON());
      });
      try {
        await page.goto(`${baseUrl}/console/quota-rules/simulator`);
        await page.getByRole("status").filter({ hasText: "Loading…" }).waitFor();
        assert.equal(await page.getByRole("textbox", { name: "Amount", exact: true }).count(), 0, "no amount field while the unit is unknown");
        settings.release();
        const form = page.getByRole("form", { name: "Order to evaluate" });
        await form.getByLabel("Account").fill("ACC-R1");
        await form.getByRole("textbox", { name: "Supplier", exact: true }).fill("SUP-R");
        await form.getByRole("textbox", { name: "Amount", exact: true }).fill("100");
        await form.getByRole("textbox", { name: "Amount", exact: true }).press("Enter");
        await page.getByRole("region", { name: "API answer" }).getByText("€20.50").waitFor();
        assert.equal(evaluated.at(-1)?.orders?.[0]?.amount, 10000, "€100 sent as 10000 cents");
      } finally {
        await settings.done();
      }
    });

    it("Events: filtered by an Operation's code (in the address), named by codes and key names, their data opened and wrapped", TIMEOUT, async () => {
      await go("Events");
      await page.getByLabel("Operation code").fill(code);
      const events = page.getByRole("table", { name: "Events" });
      await events.getByRole("cell", { name: "operation.status_changed" }).waitFor();
      await page.waitForFunction((code) => {
        const rows = [...document.querySelectorAll('table[aria-label="Events"] tbody tr')];
        return rows.length >= 3 && rows.every((row) => row.textContent.includes(code));
      }, code);
      assert.match(new URL(page.url()).search, new RegExp(`operation=${code}`));
      // Operations by code, actors by their key's name (or first characters), once the keys are read.
      await page.waitForFunction(() =>
        [...document.querySelectorAll('table[aria-label="Events"] tbody tr')].every(
          (row) => ![row.cells[2], row.cells[3]].some((cell) => /^(op_|key )/.test(cell.innerText)),
        ),
      );
      const named = await events.locator("tbody tr").evaluateAll((rows) => rows.map((row) => `${row.cells[2].innerText} ${row.cells[3].innerText}`));
      for (const text of named) assert.doesNotMatch(text, /\bop_|key:key_|\bkey key_/, "codes and key names, not internal ids");
      const data = events.locator("details.event-data").first();
      await data.locator("summary").click();
      const box = await data.locator("pre").boundingBox();
      assert.ok(box && box.x + box.width <= 1440, "the data wraps inside the page");
      await checkPage(page, "events-names");
      // A link reproduces the view; Back goes to the view before it.
      const link = page.url();
      await page.goto(`${baseUrl}/console/events`);
      await page.goto(link);
      assert.equal(await page.getByLabel("Operation code").inputValue(), code);
      await page.goBack();
      assert.equal(await page.getByLabel("Operation code").inputValue(), "");
    });

    it("lists keep their filters and sort in the address: Back and a reload reproduce them", TIMEOUT, async () => {
      await go("Operations");
      const filters = page.getByRole("search", { name: "Filters: Operations" });
      // A select's name holds its options too: the label's own word starts it.
      const statusFilter = filters.getByRole("combobox", { name: /^Status/ });
      const sortChoice = filters.getByRole("combobox", { name: /^Sort/ });
      await statusFilter.selectOption("ACTIVE");
      await sortChoice.selectOption("code");
      await page.waitForURL(/status=ACTIVE/);
      assert.match(page.url(), /sort=code/);
      await page.reload();
      assert.equal(await statusFilter.inputValue(), "ACTIVE");
      assert.equal(await sortChoice.inputValue(), "code");
      await page.getByRole("table", { name: "Operations" }).getByRole("link", { name: code, exact: true }).waitFor();
      await page.goBack();
      assert.equal(await sortChoice.inputValue(), "-createdAt");
      assert.equal(await statusFilter.inputValue(), "ACTIVE");

      await page.goto(`${baseUrl}/console/quota-rules?accountId=ACC-R2`);
      await page.getByRole("table", { name: "Quota rules" }).getByText("No rule matches.").waitFor();
      await page.goto(`${baseUrl}/console/keys?role=ACCOUNT`);
      assert.equal(await page.getByLabel("Role").inputValue(), "ACCOUNT");
    });

    it("marks the key you are signed in with, and offers no Revoke for it", TIMEOUT, async () => {
      assert.equal((await api("POST", "/v1/keys", { role: "OPERATOR", name: "Spare operator" })).status, 201);
      await page.goto(`${baseUrl}/console/keys`);
      const keys = page.getByRole("table", { name: "Keys" });
      const mine = keys.locator("tbody tr").filter({ hasText: "you are signed in with it" });
      await mine.waitFor();
      assert.equal(await mine.count(), 1);
      assert.equal(await mine.getByRole("button", { name: /Revoke/ }).count(), 0);
      await mine.getByText("Sign in with another key to revoke this one").waitFor();
      await keys.getByRole("button", { name: "Revoke Spare operator" }).waitFor();
      // A long name and a long user id wrap: at 1440 px the whole table shows, its state and Revoke included.
      const long = await api("POST", "/v1/keys", {
        role: "ACCOUNT",
        userId: "u_purchasing_department_of_rue_one_headquarters",
        name: "Rue One purchasing department, storefront integration key",
        expiresAt: "2099-06-30T00:00:00Z",
      });
      assert.equal(long.status, 201, JSON.stringify(long.body));
      await page.reload();
      await keys.getByRole("button", { name: "Revoke Rue One purchasing department, storefront integration key" }).waitFor();
      const sideways = await keys.evaluate((table) => table.parentElement.scrollWidth - table.parentElement.clientWidth);
      assert.ok(sideways <= 1, `the Keys table scrolls ${sideways} px sideways at 1440 px`);
      await checkPage(page, "keys-current");
    });

    it("says a list is loading rather than showing it empty", TIMEOUT, async () => {
      await given({ minimum: 12050 });
      const list = await hold("**/v1/buying-policies/quotas/rules?*");
      try {
        await page.goto(`${baseUrl}/console/quota-rules`);
        const rules = page.getByRole("table", { name: "Quota rules" });
        await rules.getByRole("cell", { name: "Loading…" }).waitFor();
        assert.equal(await rules.getByText("No rule matches.").count(), 0);
        list.release();
        await rules.getByRole("cell", { name: "Rue One, ACC-R1", exact: true }).waitFor();
      } finally {
        await list.done();
      }
    });

    it("signs in with the key's own role when the other one was chosen", TIMEOUT, async () => {
      const other = await server.browser.newPage();
      try {
        await other.goto(`${baseUrl}/console`);
        await other.getByLabel("API key").fill(server.accountKey);
        await other.getByLabel("Role").selectOption("OPERATOR");
        await other.getByRole("button", { name: "Sign in" }).click();
        await other.getByRole("heading", { name: "Operations" }).waitFor();
        assert.match(await other.locator(".who").innerText(), /^ACCOUNT/);
        assert.equal(await other.getByRole("alert").count(), 0, "no client_mismatch shown");
      } finally {
        await other.close();
      }
    });

    it("shows a subscription's failed deliveries on its row, and Redeliver sends one again", TIMEOUT, async () => {
      const hook = await api("POST", "/v1/webhooks", { url: receiverUrl, eventTypes: ["operation.*"], description: "Down ERP" });
      assert.equal(hook.status, 201, JSON.stringify(hook.body));
      const another = await api("POST", "/v1/operations", {
        code: `${code}-W`,
        name: { en: "Hooked" },
        type: "PUBLIC",
        startDate: "2098-01-01T00:00:00Z",
        endDate: "2098-12-31T00:00:00Z",
      });
      assert.equal(another.status, 201);
      await go("Webhooks");
      const subscriptions = page.getByRole("table", { name: "Subscriptions" });
      // Failing: this event's delivery (and any earlier event's the subscription caught as it was handed on).
      const failing = subscriptions.getByRole("link", { name: new RegExp(`^\\d+ failing ?: deliveries to ${receiverUrl.replace(/[.]/g, "\\.")}$`) });
      await failing.waitFor({ timeout: 60_000 });
      await checkPage(page, "webhooks-failing");
      await failing.click();
      await page.getByLabel("Status").selectOption("failed");
      const deliveries = page.getByRole("table", { name: "Deliveries" });
      await deliveries.getByRole("cell", { name: "failed", exact: true }).waitFor({ timeout: 60_000 });
      assert.match(new URL(page.url()).search, /status=failed/);
      await page.getByRole("heading", { name: `Deliveries to ${receiverUrl}` }).waitFor();
      const newest = (await api("GET", `/v1/webhooks/${hook.body.id}/deliveries`)).body.items[0];
      assert.equal(newest.status, "failed");
      // Newest first: the first Redeliver is the newest delivery's.
      await deliveries
        .getByRole("button", { name: /^Redeliver operation\.created/ })
        .first()
        .click();
      await status("Sent again").waitFor();
      const again = (await api("GET", `/v1/webhooks/${hook.body.id}/deliveries`)).body.items.find((d) => d.id === newest.id);
      assert.ok(again.status === "pending" || again.lastAttemptAt > newest.lastAttemptAt, JSON.stringify(again));
      await checkPage(page, "webhook-deliveries");
    });
  });

  describe("approvals on an Operation's page", () => {
    it("says what Activate needs, takes Approve / Reject with a comment, lists who and when and whether it counts, and stays current", TIMEOUT, async () => {
      const draft = await api("POST", "/v1/operations", {
        code: `${code}-A`,
        name: { en: "Needs approval" },
        type: "PUBLIC",
        startDate: "2020-01-01T00:00:00Z",
        endDate: "2099-12-31T00:00:00Z",
      });
      assert.equal((await api("PUT", `/v1/operations/${draft.body.id}/lines`, [{ variantExternalId: "SKU-A", minQuantity: 0, maxQuantity: 5 }])).status, 200);
      await go("Settings");
      await page.getByLabel("Approvals needed").selectOption("1");
      await page.getByRole("button", { name: "Save approvals" }).click();
      await status("Approvals saved.").waitFor();

      await page.goto(`${baseUrl}/console/operations/${draft.body.id}`);
      const panel = page.getByRole("region", { name: "Approvals" });
      await panel
        .getByText(/^Activate needs 1 more approval/)
        .waitFor()
        .catch(async (error) => {
          await page.screenshot({ path: "/tmp/c3-approvals-debug.png", fullPage: true });
          throw error;
        });
      assert.match(
        await panel.locator("#approvals-status").innerText(),
        /^Activate needs 1 more approval from someone other than the version's author \(0 of 1 on version \d+\)/,
      );
      await page.getByRole("toolbar", { name: "Operation" }).getByRole("button", { name: "Activate", exact: true }).click();
      await page.getByRole("alert").getByText("Not activated: 0 of 1 valid approval needed.").waitFor();

      // Its author approves: listed, but it does not count, and the page says so rather than "Approved".
      await panel.getByLabel("Comment").fill("Looks right to me");
      await panel.getByRole("button", { name: "Approve" }).click();
      await status(/^Your approval of version \d+ is recorded but does not count: you made this version/).waitFor();
      const decisions = panel.getByRole("table", { name: "Decisions" });
      await decisions.getByText("No: by the version's author").waitFor();
      assert.match(await decisions.innerText(), /Approved[\s\S]*Looks right to me/);

      // A reviewer with a key of their own rejects, then approves: the approval counts.
      const reviewerKey = (await api("POST", "/v1/keys", { role: "OPERATOR", name: "Reviewer" })).body.key;
      const reviewer = await server.browser.newPage();
      try {
        await server.signIn(reviewer, reviewerKey, "OPERATOR");
        await reviewer.goto(`${baseUrl}/console/operations/${draft.body.id}`);
        const theirs = reviewer.getByRole("region", { name: "Approvals" });
        await theirs.getByLabel("Comment").fill("Prices not checked");
        await theirs.getByRole("button", { name: "Reject" }).click();
        await theirs.getByText("Activate is refused: version").waitFor();
        await theirs.getByLabel("Comment").fill("Checked now");
        await theirs.getByLabel("Comment").press("Enter"); // Enter approves
        await theirs.getByText("it can be activated").waitFor();
        await theirs
          .getByRole("status")
          .getByText(/^Approved version \d+: your approval counts\./)
          .waitFor();
        const row = theirs.getByRole("table", { name: "Decisions" }).locator("tbody tr").filter({ hasText: "Checked now" });
        await row.getByText("Reviewer", { exact: true }).waitFor();
        assert.match(await row.innerText(), /Approved\s+Reviewer\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\s+Checked now\s+Yes/);
        await checkPage(reviewer, "approvals");
      } finally {
        await reviewer.close();
      }
      // The author's page, open all along, shows the reviewer's approval without a reload.
      await panel.getByText(/it can be activated\.$/).waitFor();
      await panel.getByRole("table", { name: "Decisions" }).getByText("Checked now").waitFor();
      await page.getByRole("toolbar", { name: "Operation" }).getByRole("button", { name: "Activate", exact: true }).click();
      await page.locator(".title-row .badge.active").waitFor();
      assert.equal((await api("GET", `/v1/operations/${draft.body.id}`)).body.status, "ACTIVE");
      // The status change made a new version: every decision is listed as no longer counting, and an ACTIVE
      // Operation has nothing to approve: no "needs 1 more approval", no Approve or Reject.
      await panel.getByText("No: made on version").first().waitFor();
      await panel.getByText(/^This Operation is ACTIVE: there is nothing to approve now\./).waitFor();
      assert.doesNotMatch(await panel.innerText(), /needs 1 more approval|does not count: you made/);
      assert.equal(await panel.getByRole("button", { name: /^(Approve|Reject)$/ }).count(), 0);
      assert.equal((await api("PUT", "/v1/settings/approvals", { activation: { required: 0 } })).status, 200);
    });
  });
}
