// The demo tenant `npm start` fills in over the real HTTP API. Every step is idempotent (it only adds
// what is missing), and a step whose route answers 404 is skipped with a warning.

import { requestJson } from "./http.mjs";

export const DEMO_TENANT = "demo";
export const DEMO_ACCOUNT_USER = "u_alice";
/** The two keys `npm start` issues for the demo tenant, named as the console and history show them. */
export const DEMO_KEYS = {
  operator: { role: "OPERATOR", name: "Demo operator" },
  account: { role: "ACCOUNT", user: DEMO_ACCOUNT_USER, name: "Alice (Maison Dupont)" },
};
/** The currency the demo's amounts are minor units of (15000 shows as 150.00). */
export const DEMO_CURRENCY = "EUR";

/** `api(method, path, body)` → { status, body } against `baseUrl`, with one key's role and secret. */
export function httpCaller(baseUrl, role, key) {
  return (method, path, body) => requestJson(`${baseUrl}${path}`, { method, headers: { "svc-client": role, "svc-api-key": key }, body });
}

/**
 * The shell variables every example of README.md and docs/ uses, as `npm start` prints them and as
 * test/node/docs-examples.test.mjs exports them: renaming one here renames it in both.
 */
export function exampleVariables({ baseUrl, operatorKey, accountKey, operations = {} }) {
  return {
    API: baseUrl,
    OP_KEY: operatorKey,
    ACC_KEY: accountKey,
    ACTIVE_OPERATION: operations.spring?.id ?? "",
    DRAFT_OPERATION: operations.winter?.id ?? "",
  };
}

/** `export NAME=value` lines that paste into bash and zsh alike (values are single-quoted). */
export function exportLines(variables) {
  return Object.entries(variables).map(([name, value]) => `export ${name}='${String(value).replaceAll("'", "'\\''")}'`);
}

const DAY = 86_400_000;
const isoSeconds = (ms) => `${new Date(ms).toISOString().slice(0, 19)}Z`;

export function demoData(now = Date.now()) {
  const open = { startDate: isoSeconds(now - 30 * DAY), endDate: isoSeconds(now + 150 * DAY) };
  const line = (sku, en, fr, minQuantity, maxQuantity, recommendedQuantity) => ({
    variantExternalId: sku,
    variantName: { en, fr },
    minQuantity,
    maxQuantity,
    ...(recommendedQuantity !== undefined && { recommendedQuantity }),
  });
  return {
    accounts: [
      {
        accountId: "A-100",
        name: "Maison Dupont",
        users: [
          { userId: "u_alice", email: "alice@dupont.example" },
          { userId: "u_bob", email: "bob@dupont.example" },
        ],
      },
      { accountId: "A-200", name: "Müller GmbH", users: [{ userId: "u_carla", email: "carla@mueller.example" }] },
      {
        accountId: "A-300",
        name: "Northwind Retail",
        users: [
          { userId: "u_alice", email: "alice@northwind.example" },
          { userId: "u_dan", email: "dan@northwind.example" },
        ],
      },
      { accountId: "A-400", name: "Casa Rossi", users: [{ userId: "u_elena", email: "elena@rossi.example" }] },
    ],
    operations: {
      spring: {
        body: {
          code: "DEMO-SPRING",
          name: { en: "Spring collection", fr: "Collection printemps", de: "Frühjahrskollektion" },
          description: { en: "Open to every account.", fr: "Ouverte à tous les comptes." },
          type: "PUBLIC",
          ...open,
          ownerIds: ["u_ops_1"],
        },
        lines: [
          line("SKU-TEE-M", "T-shirt, white, M", "T-shirt blanc, M", 0, 48, 12),
          line("SKU-TEE-L", "T-shirt, white, L", "T-shirt blanc, L", 0, 48, 12),
          line("SKU-HOOD-M", "Hoodie, navy, M", "Sweat à capuche marine, M", 2, 24, 6),
          line("SKU-CAP", "Cap, sand", "Casquette sable", 0, 100),
          line("SKU-SOCK-3", "Socks, pack of 3", "Chaussettes, lot de 3", 6, 120, 24),
        ],
        status: "ACTIVE",
      },
      keyAccounts: {
        body: {
          code: "DEMO-KEYACCOUNTS",
          name: { en: "Key accounts pre-order", fr: "Précommande grands comptes" },
          description: { en: "Only for attached accounts." },
          type: "PRIVATE",
          ...open,
          ownerIds: ["u_ops_1", "u_ops_2"],
        },
        lines: [
          line("SKU-PARKA-M", "Parka, olive, M", "Parka olive, M", 5, 60, 20),
          line("SKU-PARKA-L", "Parka, olive, L", "Parka olive, L", 5, 60, 20),
          line("SKU-BOOT-42", "Boots, size 42", "Bottes, taille 42", 0, 30, 10),
        ],
        attach: ["A-100", "A-300"],
        status: "ACTIVE",
      },
      winter: {
        body: {
          code: "DEMO-WINTER",
          name: { en: "Winter preview", fr: "Avant-première hiver" },
          type: "PUBLIC",
          startDate: isoSeconds(now + 180 * DAY),
          endDate: isoSeconds(now + 270 * DAY),
        },
        // Still a DRAFT, so its lines can change (the docs' CSV round trip edits them).
        lines: [line("SKU-COAT-M", "Wool coat, grey, M", "Manteau en laine gris, M", 0, 20, 4), line("SKU-SCARF", "Scarf, red", "Écharpe rouge", 0, 50)],
        status: "DRAFT",
      },
      clearance: {
        body: {
          code: "DEMO-CLEARANCE",
          name: { en: "Summer clearance", fr: "Soldes d'été", es: "Liquidación de verano" },
          type: "PUBLIC",
          startDate: isoSeconds(now - 120 * DAY),
          endDate: isoSeconds(now - 60 * DAY),
        },
        status: "INACTIVE",
      },
    },
    rules: [
      { accountId: "A-100", minimum: 15000 },
      { supplierId: "SUP-1", minimum: 5000 },
      { accountId: "A-300", supplierId: "SUP-1", minimum: 20000 },
    ],
    defaultMinimum: 10000,
  };
}

/**
 * Seeds through `api(method, path, body)` → { status, body }, as the OPERATOR of the demo tenant.
 * Returns the notes to show (what was done, what was skipped and why).
 */
export async function seedDemo(api, { log = console.error } = {}) {
  const data = demoData();
  const skipped = [];
  const absent = (response, what) => {
    if (response.status !== 404) return false;
    skipped.push(what);
    log(`  ! skipped ${what}: its route answered 404 (${response.body?.detail ?? "not found"})`);
    return true;
  };
  const check = (response, what, ok = [200, 201, 204]) => {
    if (!ok.includes(response.status)) {
      const detail = typeof response.body === "object" ? JSON.stringify(response.body) : String(response.body);
      log(`  ! ${what} answered ${response.status}: ${detail.slice(0, 300)}`);
      return false;
    }
    return true;
  };

  const existing = await api("GET", "/v1/operations?limit=1");
  if (!check(existing, "listing operations", [200])) return { seeded: false, skipped: ["everything"] };
  const demoSpring = await api("GET", "/v1/operations?idType=code&ids=DEMO-SPRING");
  if (existing.body.items.length && !demoSpring.body.items?.length) {
    log("  the demo tenant already has its own operations: not seeding it");
    return { seeded: false, skipped: [] };
  }

  log("Seeding the demo tenant (only what is missing) …");
  const directory = await api("PUT", "/v1/accounts", data.accounts);
  const hasDirectory = !absent(directory, "the account directory (PUT /v1/accounts)") && check(directory, "PUT /v1/accounts");
  if (hasDirectory) log(`  account directory: ${data.accounts.length} accounts`);

  const operations = {};
  for (const [name, plan] of Object.entries(data.operations)) {
    const found = await api("GET", `/v1/operations?idType=code&ids=${encodeURIComponent(plan.body.code)}`);
    let operation = found.body.items?.[0];
    if (!operation) {
      const created = await api("POST", "/v1/operations", plan.body);
      if (!check(created, `POST /v1/operations (${plan.body.code})`)) continue;
      operation = created.body;
      log(`  created ${plan.body.code} (${operation.id})`);
    }
    const path = `/v1/operations/${operation.id}`;
    if (plan.lines && operation.status === "DRAFT" && operation.lineCount === 0) {
      const lines = await api("PUT", `${path}/lines`, plan.lines);
      if (!absent(lines, `lines of ${plan.body.code} (PUT ${path}/lines)`) && check(lines, `PUT lines of ${plan.body.code}`)) {
        log(`  ${plan.body.code}: ${lines.body.lineCount} lines`);
      }
    }
    if (plan.attach && operation.status === "DRAFT" && operation.accountCount === 0) {
      if (!hasDirectory) {
        skipped.push(`attachments of ${plan.body.code} (no account directory)`);
      } else {
        const attached = await api("PUT", `${path}/accounts`, plan.attach);
        if (!absent(attached, `attachments of ${plan.body.code} (PUT ${path}/accounts)`) && check(attached, `attach accounts to ${plan.body.code}`)) {
          log(`  ${plan.body.code}: attached ${plan.attach.join(", ")}`);
        }
      }
    }
    const current = (await api("GET", path)).body;
    operation = current ?? operation;
    const ready = plan.status !== "ACTIVE" || (operation.lineCount > 0 && (!plan.attach || operation.accountCount > 0));
    if (operation.status !== plan.status && operation.status === "DRAFT" && ready) {
      const changed = await api("POST", `${path}/status`, { status: plan.status });
      if (check(changed, `${plan.body.code} → ${plan.status}`)) log(`  ${plan.body.code}: ${plan.status}`);
      operation = changed.body ?? operation;
    } else if (operation.status !== plan.status && !ready) {
      skipped.push(`${plan.body.code} → ${plan.status} (it needs its lines${plan.attach ? " and accounts" : ""} first)`);
    }
    operations[name] = operation;
  }

  const rules = await api("GET", "/v1/buying-policies/quotas/rules?limit=1");
  if (!absent(rules, "quota rules (/v1/buying-policies/quotas/rules)") && check(rules, "GET quota rules", [200]) && !rules.body.items.length) {
    for (const rule of data.rules) {
      const created = await api("POST", "/v1/buying-policies/quotas/rules", rule);
      check(created, `POST quota rule ${JSON.stringify(rule)}`);
    }
    log(`  quota rules: ${data.rules.length}`);
  }
  const quotaDefault = await api("GET", "/v1/buying-policies/quotas/default");
  if (
    !absent(quotaDefault, "the quota default (/v1/buying-policies/quotas/default)") &&
    check(quotaDefault, "GET quota default", [200]) &&
    quotaDefault.body.minimum === 0
  ) {
    const put = await api("PUT", "/v1/buying-policies/quotas/default", { minimum: data.defaultMinimum });
    if (check(put, "PUT quota default")) log(`  quota default minimum: ${data.defaultMinimum}`);
  }
  const display = await api("GET", "/v1/settings/display");
  if (!absent(display, "the display currency (/v1/settings/display)") && check(display, "GET display settings", [200]) && display.body.currency === null) {
    const put = await api("PUT", "/v1/settings/display", { currency: DEMO_CURRENCY });
    if (check(put, "PUT display settings")) log(`  display currency: ${DEMO_CURRENCY}`);
  }
  log(skipped.length ? `Demo tenant seeded, except ${skipped.length} step(s) listed below.` : "Demo tenant ready.");
  return { seeded: true, skipped, operations };
}
