// Soak: a long mixed workload on one seeded tenant, watched window by window (throughput, status
// classes, latency, the Worker's memory), then consistency checks over HTTP.
//
//   npm run bench -- soak
//   SOAK_SECONDS=600 SOAK_CONCURRENCY=16 npm run bench -- soak
//   npm run bench -- soak --seconds=600 --concurrency=16        (flags win over the environment)
//
// Options (environment variable / flag, default):
//   SOAK_SECONDS         --seconds=N       180   length of the mixed workload
//   SOAK_CONCURRENCY     --concurrency=N    16   requests in flight
//   SOAK_WINDOW_SECONDS  --window=N         30   reporting window (one table row, one memory sample)
//   SOAK_RULES           --rules=N        2000   Quotas Rules seeded in the tenant
//   SOAK_OPERATIONS      --operations=N     20   ACTIVE Operations seeded (every 4th PRIVATE)
//   SOAK_LINES           --lines=N        1000   lines per ACTIVE Operation
//   SOAK_RULE_UPDATES    --rule-updates=N    7   % of the mix that replaces a rule (PUT, new minimum)
//   SOAK_SEED            --seed=N            1   PRNG seed of the workload (the data is seeded by fixed seeds)
//   SOAK_TIMEOUT_SECONDS --timeout=N        30   per-request timeout; a timeout counts as a connection error
//
// Mix (weights out of 100; the rule-update share is taken from evaluate's 60 when changed):
//   evaluate 60 (1–5 orders; a quarter with an ACCOUNT key) · GET lines page 8 (walking nextToken)
//   · GET operation 4 · GET list operations 4 (walking nextToken) · POST carts 5
//   · POST orders that fit 4 (201) · POST orders below the minimum 3 (422 quota_min_not_met + an
//   order.blocked event) · POST compare 3 · PUT lines on a DRAFT Operation 2 · PUT a rule 7.
// Every cart and order attempt carries its own storeId (sc-N / so-N): the events of each attempt are
// found by it (order.created, order.blocked and cart.created record the storeId).
//
// Memory: every window, VmRSS of the workerd processes that descend from this node process (the
// runner's `wrangler dev` child and its children), and of the wrangler node process, from /proc.
import { readFileSync, readdirSync } from "node:fs";
import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { seededRandom } from "../lib.mjs";

// ---- options -------------------------------------------------------------------------------
function flag(name) {
  const prefix = `--${name}=`;
  const arg = process.argv.find((a) => a.startsWith(prefix));
  return arg === undefined ? undefined : arg.slice(prefix.length);
}
function option(envName, flagName, fallback) {
  const raw = flag(flagName) ?? process.env[envName];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${envName} / --${flagName} must be a non-negative number, got ${raw}`);
  return value;
}

const EVALUATE = "/v1/buying-policies/quotas/evaluate";
const RULES = "/v1/buying-policies/quotas/rules";
const OPEN = { startDate: "2020-01-01T00:00:00Z", endDate: "2099-12-31T23:59:59Z" };
const DIRECTORY_ACCOUNTS = 500;
const ATTACHED_ACCOUNTS = 200; // A0000..A0199: attached to every PRIVATE Operation; carts and orders use them
const SUPPLIERS = 100;
const STORES = 10;
const DRAFT_OPERATIONS = 2;
const DRAFT_KEYS = 2000; // key space of the PUT-lines traffic on the DRAFT Operations
const DRAFT_PUT_LINES = 100;
const MAX_ERROR_BODIES = 5;
const MAX_MINIMUM = 50_000; // every rule minimum stays in [100, 50,000]; the default is 5,000
const FIT_UNIT_PRICE = 10_000; // a fitting order's supplier buys ≥ 6 units: ≥ 60,000 > any minimum

const account = (i) => `A${String(i).padStart(4, "0")}`;
const supplier = (i) => `S${String(i).padStart(3, "0")}`;
const store = (i) => `st_${i}`;
const sku = (i) => `SKU-${String(i).padStart(5, "0")}`;
const draftSku = (i) => `D-${String(i).padStart(5, "0")}`;
const mb = (bytes) => Math.round(bytes / 2 ** 20);
const r1 = (x) => (Number.isFinite(x) ? Math.round(x * 10) / 10 : x);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(sorted, fraction) {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))];
}
function latency(samples) {
  const sorted = Float64Array.from(samples).sort();
  return { p50: percentile(sorted, 0.5), p95: percentile(sorted, 0.95), p99: percentile(sorted, 0.99), max: sorted.length ? sorted[sorted.length - 1] : NaN };
}

// ---- memory of the Worker processes (Linux /proc) -----------------------------------------
function processTable() {
  const table = new Map();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      table.set(Number(entry), ppid);
    } catch {
      // gone meanwhile
    }
  }
  return table;
}
function descendantsOf(root) {
  const table = processTable();
  const children = new Map();
  for (const [pid, ppid] of table) {
    if (!children.has(ppid)) children.set(ppid, []);
    children.get(ppid).push(pid);
  }
  const found = [];
  const queue = [...(children.get(root) ?? [])];
  while (queue.length) {
    const pid = queue.shift();
    found.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return found;
}
function rssKb(pid) {
  try {
    const match = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}
/** RSS (MB) of this bench's workerd processes and of its wrangler node process; null where /proc is missing. */
function sampleMemory() {
  try {
    let workerd = 0;
    let wrangler = 0;
    const workerdPids = [];
    const perPid = {};
    for (const pid of descendantsOf(process.pid)) {
      let cmdline = "";
      try {
        cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
      } catch {
        continue;
      }
      if (/workerd/.test(cmdline.split(" ")[0]) || /\bworkerd serve\b/.test(cmdline)) {
        const kb = rssKb(pid);
        workerd += kb;
        workerdPids.push(pid);
        perPid[pid] = mb(kb * 1024);
      } else if (cmdline.includes("wrangler")) {
        wrangler += rssKb(pid);
      }
    }
    return {
      load1: Math.round(loadavg()[0] * 100) / 100,
      workerdMb: workerdPids.length ? mb(workerd * 1024) : null,
      wranglerMb: mb(wrangler * 1024),
      workerdPids,
      perPid,
      clientMb: mb(process.memoryUsage().rss),
    };
  } catch {
    return {
      load1: Math.round(loadavg()[0] * 100) / 100,
      workerdMb: null,
      wranglerMb: null,
      workerdPids: [],
      perPid: {},
      clientMb: mb(process.memoryUsage().rss),
    };
  }
}

// ---- seed data -------------------------------------------------------------------------------
function ruleBodies(count) {
  const next = seededRandom(4);
  const pick = (n) => Math.floor(next() * n);
  const seen = new Set();
  const bodies = [];
  const capacity = DIRECTORY_ACCOUNTS * SUPPLIERS; // far above any sensible SOAK_RULES
  if (count > capacity) throw new Error(`SOAK_RULES at most ${capacity}`);
  while (bodies.length < count) {
    const shape = pick(20);
    const body =
      shape < 10
        ? { accountId: account(pick(DIRECTORY_ACCOUNTS)), supplierId: supplier(pick(SUPPLIERS)) }
        : shape < 14
          ? { accountId: account(pick(DIRECTORY_ACCOUNTS)) }
          : shape < 17
            ? { supplierId: supplier(pick(SUPPLIERS)) }
            : { accountId: account(pick(DIRECTORY_ACCOUNTS)), supplierId: supplier(pick(SUPPLIERS)), storeId: store(pick(STORES)) };
    const scope = `${body.accountId ?? ""}|${body.supplierId ?? ""}|${body.storeId ?? ""}`;
    if (seen.has(scope)) continue;
    seen.add(scope);
    bodies.push({ ...body, minimum: 100 * (1 + pick(MAX_MINIMUM / 100)) });
  }
  return bodies;
}

function operationLines(count) {
  return Array.from({ length: count }, (_, i) => ({
    variantExternalId: sku(i),
    variantName: { en: `Shirt ${i}`, fr: `Chemise ${i}` },
    minQuantity: i % 4 === 0 ? 1 : 0,
    maxQuantity: 24,
    recommendedQuantity: i % 3 ? 6 : null,
  }));
}

// ---- the suite -------------------------------------------------------------------------------
export default async function soak(ctx) {
  const seconds = option("SOAK_SECONDS", "seconds", 180);
  const concurrency = Math.max(1, Math.floor(option("SOAK_CONCURRENCY", "concurrency", 16)));
  const windowSeconds = Math.max(1, option("SOAK_WINDOW_SECONDS", "window", 30));
  const ruleCount = Math.max(1, Math.floor(option("SOAK_RULES", "rules", 2000)));
  const operationCount = Math.max(1, Math.floor(option("SOAK_OPERATIONS", "operations", 20)));
  const lineCount = Math.max(10, Math.floor(option("SOAK_LINES", "lines", 1000)));
  const ruleUpdateShare = Math.min(40, option("SOAK_RULE_UPDATES", "rule-updates", 7));
  const seed = Math.floor(option("SOAK_SEED", "seed", 1));
  const timeoutMs = option("SOAK_TIMEOUT_SECONDS", "timeout", 30) * 1000;
  const log = (line) => process.stderr.write(`[soak] ${line}\n`);

  // ---- seeding ----------------------------------------------------------------------------
  const seedStarted = performance.now();
  const { tenantId, operator } = await ctx.newTenant();
  log(`tenant ${tenantId}: seeding ${ruleCount} rules, ${DIRECTORY_ACCOUNTS} directory accounts, ${operationCount} Operations × ${lineCount} lines …`);

  const directory = Array.from({ length: DIRECTORY_ACCOUNTS }, (_, i) => ({
    accountId: account(i),
    name: `Account ${i}`,
    users: [{ userId: `u_${i % 100}`, email: `u${i % 100}@example.com` }],
  }));
  await ctx.expect(operator, "PUT", "/v1/accounts", directory, 200);
  const accountCaller = await ctx.newKey(tenantId, "ACCOUNT", "u_0"); // member of A0000, A0100, …, A0400

  const ruleSeeds = ruleBodies(ruleCount);
  const rules = new Array(ruleCount);
  await ctx.pool(ruleCount, 8, async (i) => {
    const { body } = await ctx.expect(operator, "POST", RULES, ruleSeeds[i], 201);
    rules[i] = { id: body.id, accountId: body.accountId, supplierId: body.supplierId, storeId: body.storeId };
  });
  await ctx.expect(operator, "PUT", "/v1/buying-policies/quotas/default", { minimum: 5_000 }, 200);

  const lines = operationLines(lineCount);
  const attached = Array.from({ length: ATTACHED_ACCOUNTS }, (_, i) => account(i));
  const operations = new Array(operationCount);
  await ctx.pool(operationCount, 4, async (k) => {
    const type = k % 4 === 3 ? "PRIVATE" : "PUBLIC";
    const { body: operation } = await ctx.expect(
      operator,
      "POST",
      "/v1/operations",
      { code: `SOAK-${k}`, name: { en: `Soak ${k}`, fr: `Endurance ${k}` }, type, ...OPEN },
      201,
    );
    for (let i = 0; i < lines.length; i += 5000) {
      await ctx.expect(operator, "PUT", `/v1/operations/${operation.id}/lines`, lines.slice(i, i + 5000), 200);
    }
    if (type === "PRIVATE") await ctx.expect(operator, "PUT", `/v1/operations/${operation.id}/accounts`, attached, 200);
    await ctx.expect(operator, "POST", `/v1/operations/${operation.id}/status`, { status: "ACTIVE" }, 200);
    operations[k] = { id: operation.id, type };
  });
  const drafts = [];
  for (let d = 0; d < DRAFT_OPERATIONS; d++) {
    const { body: operation } = await ctx.expect(
      operator,
      "POST",
      "/v1/operations",
      { code: `SOAK-DRAFT-${d}`, name: { en: `Soak draft ${d}` }, type: "PUBLIC", ...OPEN },
      201,
    );
    const initial = Array.from({ length: 500 }, (_, i) => ({
      variantExternalId: draftSku(i * 4),
      variantName: { en: `Draft ${i}` },
      minQuantity: 0,
      maxQuantity: 12,
    }));
    await ctx.expect(operator, "PUT", `/v1/operations/${operation.id}/lines`, initial, 200);
    drafts.push({ id: operation.id, type: "PUBLIC", draft: true });
  }
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  log(`seeded in ${r1(seedSeconds)} s; running the mix for ${seconds} s with ${concurrency} in flight (windows of ${windowSeconds} s)`);

  // ---- the request loop ------------------------------------------------------------------------
  const base = ctx.baseUrl;
  const authHeaders = (caller) => ({ "svc-client": caller.role, "svc-api-key": caller.key });
  const windowMs = windowSeconds * 1000;
  const windowCount = Math.max(1, Math.ceil(seconds / windowSeconds));
  const newWindow = () => ({ classes: new Map(), all: [], evaluate: [], count: 0, ok: 0, unexpected4xx: 0, other: 0, s5xx: 0, conn: 0 });
  const windows = Array.from({ length: windowCount }, newWindow);
  const classTotals = new Map();
  const errorBodies = [];
  const signatures = new Map(); // class|status|content-type|body prefix → { count, first, example }
  let started = 0;
  let totalRequests = 0;

  const classStats = (map, name) => {
    let stats = map.get(name);
    if (!stats) {
      stats = { count: 0, ok: 0, unexpected4xx: 0, other: 0, s5xx: 0, conn: 0, ms: [] };
      map.set(name, stats);
    }
    return stats;
  };

  /**
   * One request of class `name`. `accept(status, text)` says whether the answer is one this class
   * should produce. Resolves { status, text, ok } (status 0: the fetch threw: connection error or timeout).
   */
  async function call(name, caller, method, path, body, accept, extraHeaders) {
    const init = { method, headers: { ...authHeaders(caller), ...extraHeaders }, signal: AbortSignal.timeout(timeoutMs) };
    if (body !== undefined) {
      init.body = JSON.stringify(body);
      init.headers["content-type"] = "application/json";
    }
    const t0 = performance.now();
    let status = 0;
    let text = "";
    let headers = null;
    let failure = null;
    try {
      const response = await fetch(base + path, init);
      status = response.status;
      headers = response.headers;
      text = await response.text();
    } catch (error) {
      failure = error;
    }
    const ms = performance.now() - t0;
    const elapsed = performance.now() - started;
    const w = Math.min(windowCount - 1, Math.floor(elapsed / windowMs));
    const win = windows[w];
    const perWindow = classStats(win.classes, name);
    const total = classStats(classTotals, name);
    totalRequests++;
    win.count++;
    perWindow.count++;
    total.count++;
    let ok = false;
    if (failure) {
      win.conn++;
      perWindow.conn++;
      total.conn++;
    } else {
      ok = accept(status, text);
      const bucket = ok ? "ok" : status >= 500 ? "s5xx" : status >= 400 ? "unexpected4xx" : "other";
      win[bucket]++;
      perWindow[bucket]++;
      total[bucket]++;
      win.all.push(ms);
      perWindow.ms.push(ms);
      total.ms.push(ms);
      if (name === "evaluate") win.evaluate.push(ms);
    }
    if (!ok) {
      const contentType = headers?.get("content-type") ?? "";
      const info = failure
        ? {
            class: name,
            status: "connection error",
            error: `${failure.name}: ${failure.message}${failure.cause ? ` (${failure.cause.code ?? failure.cause.message ?? failure.cause})` : ""}`,
          }
        : {
            class: name,
            status,
            contentType,
            problemJson: contentType.includes("application/problem+json"),
            requestId: headers.has("x-request-id"),
            body: text.slice(0, 300),
          };
      const at = `${r1(elapsed / 1000)} s, request #${totalRequests}`;
      if (errorBodies.length < MAX_ERROR_BODIES) errorBodies.push({ at, ...info });
      const key = failure ? `${name}|conn|${info.error.slice(0, 80)}` : `${name}|${status}|${contentType.split(";")[0]}|${text.slice(0, 60)}`;
      const signature = signatures.get(key);
      if (signature) signature.count++;
      else signatures.set(key, { count: 1, first: at, example: info, classCounts: Object.fromEntries([...classTotals].map(([n, st]) => [n, st.count])) });
    }
    return { status, text, ok, failed: Boolean(failure) };
  }

  const isStatus =
    (...codes) =>
    (status) =>
      codes.includes(status);
  const rng = seededRandom(seed);
  const pick = (n) => Math.floor(rng() * n);
  const active = operations;
  const readable = [...operations, ...drafts];
  const orderAttempts = new Map(); // storeId → { kind: "fit" | "blocked", operationId, outcome, orderId }
  const cartAttempts = new Map();
  let attemptSeq = 0;
  let ruleUpdates = 0;

  const fitLines = () => {
    const suppliers = 1 + pick(4);
    const out = [];
    const used = new Set();
    for (let s = 0; s < suppliers; s++) {
      const sup = supplier(pick(SUPPLIERS));
      for (let j = 0, n = 1 + pick(3); j < n; j++) {
        const i = pick(lineCount);
        if (used.has(i)) continue;
        used.add(i);
        out.push({ variantExternalId: sku(i), quantity: 6 + pick(5), unitPrice: FIT_UNIT_PRICE, supplierId: sup });
      }
      // make sure each supplier has its 6 units, even if all its picks collided
      if (!out.some((line) => line.supplierId === sup)) {
        const i = [...Array(lineCount).keys()].find((k) => !used.has(k));
        used.add(i);
        out.push({ variantExternalId: sku(i), quantity: 6, unitPrice: FIT_UNIT_PRICE, supplierId: sup });
      }
    }
    return out;
  };

  const mix = [
    ["evaluate", 60 - Math.max(0, ruleUpdateShare - 7)],
    ["lines page", 8],
    ["get operation", 4],
    ["list operations", 4],
    ["cart", 5],
    ["order (fits)", 4],
    ["order (below min)", 3],
    ["compare", 3],
    ["put lines (DRAFT)", 2],
    ["rule update", ruleUpdateShare],
  ];
  const totalWeight = mix.reduce((sum, [, weight]) => sum + weight, 0);
  const chooseClass = () => {
    let x = rng() * totalWeight;
    for (const [name, weight] of mix) {
      x -= weight;
      if (x < 0) return name;
    }
    return mix[0][0];
  };

  /**
   * One cart or order attempt on a random ACTIVE Operation for an attached account. Its own storeId
   * (prefix-N) finds its events later; the attempt is recorded in `attempts` and settled by the answer.
   */
  async function place(className, path, attempts, prefix, fields, linesOf, expected) {
    const operation = active[pick(active.length)];
    const storeId = `${prefix}-${++attemptSeq}`;
    const attempt = { ...fields, operationId: operation.id, outcome: "pending", ...(path === "/v1/carts" && { cartId: null }) };
    attempts.set(storeId, attempt);
    const body = { operationId: operation.id, accountId: account(pick(ATTACHED_ACCOUNTS)), storeId, lines: linesOf() };
    const result = await call(className, operator, "POST", path, body, expected);
    settle(attempt, result, path === "/v1/carts" ? "cart" : "order");
    return result;
  }

  const actions = {
    evaluate: () => {
      // ACCOUNT keys evaluate their own accounts only (u_0 belongs to every 100th account).
      const asAccount = pick(4) === 0;
      const orders = Array.from({ length: 1 + pick(5) }, () => {
        const useRule = pick(4) !== 0;
        const rule = rules[pick(rules.length)];
        const anyAccount = useRule && rule.accountId ? rule.accountId : account(pick(DIRECTORY_ACCOUNTS + 100));
        const order = {
          accountId: asAccount ? account(100 * pick(DIRECTORY_ACCOUNTS / 100)) : anyAccount,
          supplierId: useRule && rule.supplierId ? rule.supplierId : pick(5) === 0 ? null : supplier(pick(SUPPLIERS)),
          amount: 100 * pick(600),
        };
        if (pick(3) === 0) order.storeId = useRule && rule.storeId ? rule.storeId : store(pick(STORES));
        return order;
      });
      return call("evaluate", asAccount ? accountCaller : operator, "POST", EVALUATE, { orders }, isStatus(200));
    },
    "lines page": async (state) => {
      if (!state.lines?.token) {
        const operation = readable[pick(readable.length)];
        state.lines = { operationId: operation.id, limit: [100, 250, 500, 1000][pick(4)], token: null };
      }
      const { operationId, limit, token } = state.lines;
      const query = new URLSearchParams({ limit: String(limit), ...(token && { nextToken: token }) });
      const result = await call("lines page", operator, "GET", `/v1/operations/${operationId}/lines?${query}`, undefined, isStatus(200));
      state.lines.token = result.ok ? (safeJson(result.text)?.nextToken ?? null) : null;
      return result;
    },
    "get operation": () => {
      const operation = readable[pick(readable.length)];
      return call("get operation", pick(3) === 0 ? accountCaller : operator, "GET", `/v1/operations/${operation.id}`, undefined, isStatus(200));
    },
    "list operations": async (state) => {
      if (!state.list?.token) {
        const queries = [{ limit: "5" }, { limit: "10", status: "ACTIVE" }, { limit: "10", sort: "name" }, { limit: "8", type: "PUBLIC" }];
        state.list = { query: queries[pick(queries.length)], caller: pick(3) === 0 ? accountCaller : operator, token: null };
      }
      const { query, caller, token } = state.list;
      const params = new URLSearchParams({ ...query, ...(token && { nextToken: token }) });
      const result = await call("list operations", caller, "GET", `/v1/operations?${params}`, undefined, isStatus(200));
      state.list.token = result.ok ? (safeJson(result.text)?.nextToken ?? null) : null;
      return result;
    },
    cart: () => place("cart", "/v1/carts", cartAttempts, "sc", {}, fitLines, isStatus(201)),
    "order (fits)": () => place("order (fits)", "/v1/orders", orderAttempts, "so", { kind: "fit", orderId: null }, fitLines, isStatus(201)),
    // One line of one unit at 1–50: below every minimum (rules ≥ 100, default 5,000).
    "order (below min)": () =>
      place(
        "order (below min)",
        "/v1/orders",
        orderAttempts,
        "so",
        { kind: "blocked", orderId: null },
        () => [{ variantExternalId: sku(pick(lineCount)), quantity: 1, unitPrice: 1 + pick(50), supplierId: pick(4) === 0 ? null : supplier(pick(SUPPLIERS)) }],
        (status, text) => status === 422 && safeJson(text)?.code === "quota_min_not_met",
      ),
    compare: () => {
      const operation = active[pick(active.length)];
      const start = pick(lineCount);
      const count = 20 + pick(80);
      const body = {
        lines: Array.from({ length: Math.min(count, lineCount) }, (_, j) => ({ variantExternalId: sku((start + j) % lineCount), quantity: pick(30) })),
      };
      if (pick(10) === 0) body.lines.push({ variantExternalId: `GONE-${pick(1000)}`, quantity: 1 });
      return call("compare", pick(4) === 0 ? accountCaller : operator, "POST", `/v1/operations/${operation.id}/compare`, body, isStatus(200));
    },
    "put lines (DRAFT)": () => {
      const operation = drafts[pick(drafts.length)];
      const start = pick(DRAFT_KEYS);
      const round = pick(10);
      const body = Array.from({ length: DRAFT_PUT_LINES }, (_, j) => ({
        variantExternalId: draftSku((start + j * 7) % DRAFT_KEYS),
        variantName: { en: `Draft ${(start + j * 7) % DRAFT_KEYS} r${round}` },
        minQuantity: j % 3,
        maxQuantity: 12 + round,
        recommendedQuantity: j % 5 === 0 ? null : 6,
      }));
      return call("put lines (DRAFT)", operator, "PUT", `/v1/operations/${operation.id}/lines`, body, isStatus(200));
    },
    "rule update": async () => {
      const rule = rules[pick(rules.length)];
      ruleUpdates++;
      const body = { accountId: rule.accountId, supplierId: rule.supplierId, storeId: rule.storeId, minimum: 100 * (1 + pick(MAX_MINIMUM / 100)) };
      return call("rule update", operator, "PUT", `${RULES}/${rule.id}`, body, isStatus(200));
    },
  };

  function settle(attempt, result, kind) {
    if (result.failed) attempt.outcome = "unknown (connection error)";
    else if (result.status === 201) {
      attempt.outcome = "created";
      const id = safeJson(result.text)?.id;
      if (kind === "cart") attempt.cartId = id;
      else attempt.orderId = id;
    } else if (result.status === 422 && safeJson(result.text)?.code === "quota_min_not_met") attempt.outcome = "blocked";
    else if (result.status >= 500) attempt.outcome = `unknown (${result.status})`;
    else attempt.outcome = `refused (${result.status})`;
  }

  // Memory and progress, each window.
  const memory = new Array(windowCount).fill(null);
  const memoryAtStart = sampleMemory();
  const progress = (w) => {
    memory[w] = sampleMemory();
    const win = windows[w];
    const lat = latency(win.all);
    const ev = latency(win.evaluate);
    const span = Math.min(windowMs, seconds * 1000 - w * windowMs) / 1000;
    log(
      `window ${w + 1}/${windowCount} (${r1((w * windowMs) / 1000)}–${r1((w * windowMs) / 1000 + span)} s): ${win.count} req (${Math.round(win.count / span)}/s, ${Math.round(win.ok / span)} ok/s), ` +
        `5xx ${win.s5xx}, unexpected 4xx ${win.unexpected4xx}, conn ${win.conn}; p50/p99 ${r1(lat.p50)}/${r1(lat.p99)} ms, evaluate p99 ${r1(ev.p99)} ms; ` +
        `workerd RSS ${memory[w].workerdMb ?? "?"} MB, wrangler ${memory[w].wranglerMb ?? "?"} MB; load ${memory[w].load1}; total ${totalRequests} req`,
    );
  };

  started = performance.now();
  const deadline = started + seconds * 1000;
  let reported = 0;
  const ticker = setInterval(() => {
    const w = Math.floor((performance.now() - started) / windowMs) - 1;
    while (reported <= w && reported < windowCount - 1) progress(reported++);
  }, 250);
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      const state = {};
      while (performance.now() < deadline) {
        const result = await actions[chooseClass()](state);
        // A dead server answers connection errors at once: do not spin on them.
        if (result?.failed) await sleep(50);
      }
    }),
  );
  const runSeconds = (performance.now() - started) / 1000;
  clearInterval(ticker);
  while (reported < windowCount) progress(reported++);

  // ---- consistency checks over HTTP ---------------------------------------------------------------
  log("checking consistency …");
  const checks = [];
  const check = (name, pass, detail) => checks.push({ name, pass, detail });
  const get = async (caller, path) => {
    const response = await ctx.request(caller, "GET", path);
    if (response.status !== 200)
      throw new Error(
        `GET ${path} answered ${response.status}: ${String(typeof response.body === "string" ? response.body : JSON.stringify(response.body)).slice(0, 200)}`,
      );
    return response.body;
  };
  const walk = async (path, onPage) => {
    let token = null;
    let pages = 0;
    do {
      const separator = path.includes("?") ? "&" : "?";
      const body = await get(operator, `${path}${token ? `${separator}nextToken=${encodeURIComponent(token)}` : ""}`);
      onPage(body.items);
      token = body.nextToken;
      pages++;
    } while (token);
    return pages;
  };
  const attempt = async (name, fn) => {
    try {
      await fn();
    } catch (error) {
      check(name, false, `could not run: ${error.message}`);
    }
  };

  // 1. lineCount equals the lines walked page by page.
  await attempt("lineCount = lines walked", async () => {
    const mismatches = [];
    let walked = 0;
    for (const operation of readable) {
      const { lineCount: stated } = await get(operator, `/v1/operations/${operation.id}`);
      let n = 0;
      await walk(`/v1/operations/${operation.id}/lines?limit=1000`, (items) => (n += items.length));
      walked += n;
      if (n !== stated) mismatches.push(`${operation.id}${operation.draft ? " (DRAFT)" : ""}: lineCount ${stated}, walked ${n}`);
    }
    check(
      "lineCount = lines walked",
      mismatches.length === 0,
      `${readable.length} Operations (${operationCount} ACTIVE, ${drafts.length} DRAFT), ${walked} lines walked; ${mismatches.length} mismatches${mismatches.length ? `: ${mismatches.slice(0, 5).join("; ")}` : ""}`,
    );
  });

  // 2. Every 201 order is readable.
  const createdOrders = [...orderAttempts].filter(([, a]) => a.outcome === "created");
  const createdCarts = [...cartAttempts].filter(([, a]) => a.outcome === "created");
  await attempt("201 orders readable", async () => {
    let readableCount = 0;
    const failures = [];
    await ctx.pool(createdOrders.length, 8, async (i) => {
      const [storeId, a] = createdOrders[i];
      const response = await ctx.request(operator, "GET", `/v1/orders/${a.orderId}`);
      if (response.status === 200 && response.body?.id === a.orderId && response.body?.storeId === storeId) readableCount++;
      else failures.push(`${a.orderId}: ${response.status}`);
    });
    check(
      "201 orders readable",
      failures.length === 0,
      `${readableCount}/${createdOrders.length} read back by GET /v1/orders/:id${failures.length ? `; failures: ${failures.slice(0, 5).join(", ")}` : ""}`,
    );
  });

  // 3–5. Events: one order.created per 201 order, one order.blocked per 422 attempt, one cart.created per 201 cart.
  await attempt("events", async () => {
    const byStore = new Map(); // storeId → { "order.created": n, "order.blocked": n, "cart.created": n, orderIds }
    let eventCount = 0;
    const pages = await walk("/v1/events?types=order.created,order.blocked,cart.created&limit=500", (items) => {
      for (const event of items) {
        eventCount++;
        const storeId = event.data?.storeId;
        if (!byStore.has(storeId)) byStore.set(storeId, { "order.created": 0, "order.blocked": 0, "cart.created": 0, orderIds: [], operationIds: [] });
        const entry = byStore.get(storeId);
        entry[event.type]++;
        if (event.data?.orderId) entry.orderIds.push(event.data.orderId);
        entry.operationIds.push(event.operationId);
      }
    });
    const count = (storeId, type) => byStore.get(storeId)?.[type] ?? 0;

    const createdBad = [];
    for (const [storeId, a] of createdOrders) {
      const entry = byStore.get(storeId);
      if (count(storeId, "order.created") !== 1 || entry.orderIds[0] !== a.orderId || entry.operationIds[0] !== a.operationId) {
        createdBad.push(`${a.orderId}: ${count(storeId, "order.created")} order.created`);
      }
      if (count(storeId, "order.blocked")) createdBad.push(`${a.orderId}: also ${count(storeId, "order.blocked")} order.blocked`);
    }
    check(
      "one order.created per 201 order",
      createdBad.length === 0,
      `${createdOrders.length} orders answered 201; ${createdBad.length} without exactly one matching order.created${createdBad.length ? `: ${createdBad.slice(0, 5).join("; ")}` : ""}`,
    );

    const blockedAttempts = [...orderAttempts].filter(([, a]) => a.outcome === "blocked");
    const blockedBad = blockedAttempts.filter(([storeId]) => count(storeId, "order.blocked") !== 1 || count(storeId, "order.created") !== 0);
    check(
      "one order.blocked per 422 quota_min_not_met",
      blockedBad.length === 0,
      `${blockedAttempts.length} attempts answered 422 quota_min_not_met; ${blockedBad.length} without exactly one order.blocked (and no order.created)${
        blockedBad.length
          ? `: ${blockedBad
              .slice(0, 5)
              .map(([s]) => `${s}: ${count(s, "order.blocked")} blocked, ${count(s, "order.created")} created`)
              .join("; ")}`
          : ""
      }`,
    );

    // Attempts whose answer was not 201/422: what did they leave behind?
    const other = [...orderAttempts].filter(([, a]) => a.outcome !== "created" && a.outcome !== "blocked");
    const leftBehind = other.filter(([storeId]) => count(storeId, "order.created") + count(storeId, "order.blocked") > 0);
    const refusedLeftBehind = leftBehind.filter(([, a]) => a.outcome.startsWith("refused"));
    const leftCreated = leftBehind.filter(([storeId]) => count(storeId, "order.created") > 0);
    const leftBlocked = leftBehind.filter(([storeId]) => count(storeId, "order.blocked") > 0);
    const ofKind = (list, kind) => list.filter(([, a]) => a.kind === kind).length;
    check(
      "failed order attempts: no trace unless the outcome was unknown",
      refusedLeftBehind.length === 0,
      `${other.length} order attempts answered neither 201 nor 422 quota_min_not_met (${summarizeOutcomes(other)}): ${ofKind(other, "fit")} fitting, ${ofKind(other, "blocked")} below the minimum; ` +
        `${leftCreated.length} of them have an order.created (the order exists: ${ofKind(leftCreated, "fit")} fitting, ${ofKind(leftCreated, "blocked")} below min) and ${leftBlocked.length} an order.blocked (${ofKind(leftBlocked, "fit")} fitting, ${ofKind(leftBlocked, "blocked")} below min)` +
        `${
          leftBehind.length
            ? `; e.g. ${leftBehind
                .slice(0, 3)
                .map(([s, a]) => `${s} ${a.kind} ${a.outcome}: ${count(s, "order.created")} created, ${count(s, "order.blocked")} blocked`)
                .join("; ")}`
            : ""
        }`,
    );

    const cartsBad = createdCarts.filter(([storeId]) => count(storeId, "cart.created") !== 1);
    check(
      "one cart.created per 201 cart",
      cartsBad.length === 0,
      `${createdCarts.length} carts answered 201; ${cartsBad.length} without exactly one cart.created`,
    );

    const known = new Set([...orderAttempts.keys(), ...cartAttempts.keys()]);
    const stray = [...byStore.keys()].filter((storeId) => !known.has(storeId));
    check(
      "no event of an unknown attempt",
      stray.length === 0,
      `${eventCount} order/cart events in ${pages} pages; ${stray.length} store ids not from this run${stray.length ? `: ${stray.slice(0, 5).join(", ")}` : ""}`,
    );
  });

  // 6. Per Operation: orders listed = 201 orders; cart.created events = 201 carts (cartCount/orderCount are not in the representation).
  await attempt("per-Operation orders and carts", async () => {
    const ordersBad = [];
    let listed = 0;
    for (const operation of active) {
      let n = 0;
      await walk(`/v1/operations/${operation.id}/orders?limit=500`, (items) => (n += items.length));
      listed += n;
      const expected = createdOrders.filter(([, a]) => a.operationId === operation.id).length;
      const unknown = [...orderAttempts.values()].filter((a) => a.operationId === operation.id && a.kind === "fit" && a.outcome.startsWith("unknown")).length;
      if (n < expected || n > expected + unknown)
        ordersBad.push(`${operation.id}: ${n} listed, ${expected} answered 201${unknown ? ` (+${unknown} unknown)` : ""}`);
    }
    check(
      "orders listed per Operation = 201 orders",
      ordersBad.length === 0,
      `${listed} orders listed over ${active.length} Operations, ${createdOrders.length} answered 201; ${ordersBad.length} Operations differ${ordersBad.length ? `: ${ordersBad.slice(0, 5).join("; ")}` : ""}`,
    );

    const cartsByOperation = new Map();
    await walk("/v1/events?types=cart.created&limit=500", (items) => {
      for (const event of items) cartsByOperation.set(event.operationId, (cartsByOperation.get(event.operationId) ?? 0) + 1);
    });
    const cartsBad = [];
    for (const operation of active) {
      const expected = createdCarts.filter(([, a]) => a.operationId === operation.id).length;
      const unknown = [...cartAttempts.values()].filter((a) => a.operationId === operation.id && a.outcome.startsWith("unknown")).length;
      const n = cartsByOperation.get(operation.id) ?? 0;
      if (n < expected || n > expected + unknown) cartsBad.push(`${operation.id}: ${n} cart.created, ${expected} answered 201`);
    }
    check(
      "cart.created per Operation = 201 carts",
      cartsBad.length === 0,
      `${createdCarts.length} carts answered 201 over ${active.length} Operations; ${cartsBad.length} Operations differ${cartsBad.length ? `: ${cartsBad.slice(0, 5).join("; ")}` : ""}`,
    );
  });

  // ---- rows and notes ------------------------------------------------------------------------------
  const rows = [];
  const windowRate = [];
  for (let w = 0; w < windowCount; w++) {
    const win = windows[w];
    const span = Math.min(windowMs, seconds * 1000 - w * windowMs) / 1000;
    const lat = latency(win.all);
    const ev = latency(win.evaluate);
    windowRate.push({ w, span, okRate: win.ok / span });
    rows.push({
      row: `window ${w + 1} (${r1((w * windowMs) / 1000)}–${r1((w * windowMs) / 1000 + span)} s)`,
      requests: win.count,
      "req/s": Math.round(win.count / span),
      "ok/s": Math.round(win.ok / span),
      "4xx unexp": win.unexpected4xx + win.other,
      "5xx": win.s5xx,
      "conn err": win.conn,
      p50: r1(lat.p50),
      p95: r1(lat.p95),
      p99: r1(lat.p99),
      "evaluate p99": r1(ev.p99),
      "workerd RSS MB": memory[w]?.workerdMb ?? "",
      "wrangler RSS MB": memory[w]?.wranglerMb ?? "",
      "load 1m": memory[w]?.load1 ?? "",
    });
  }
  const totals = { count: 0, ok: 0, unexpected4xx: 0, other: 0, s5xx: 0, conn: 0, ms: [] };
  for (const [name] of mix) {
    const stats = classTotals.get(name);
    if (!stats) continue;
    const lat = latency(stats.ms);
    for (const key of ["count", "ok", "unexpected4xx", "other", "s5xx", "conn"]) totals[key] += stats[key];
    rows.push({
      row: `all: ${name}`,
      requests: stats.count,
      "req/s": Math.round(stats.count / runSeconds),
      "ok/s": Math.round(stats.ok / runSeconds),
      "4xx unexp": stats.unexpected4xx + stats.other,
      "5xx": stats.s5xx,
      "conn err": stats.conn,
      p50: r1(lat.p50),
      p95: r1(lat.p95),
      p99: r1(lat.p99),
    });
  }
  const allLatency = latency(windows.flatMap((win) => win.all));
  rows.push({
    row: "all classes",
    requests: totals.count,
    "req/s": Math.round(totals.count / runSeconds),
    "ok/s": Math.round(totals.ok / runSeconds),
    "4xx unexp": totals.unexpected4xx + totals.other,
    "5xx": totals.s5xx,
    "conn err": totals.conn,
    p50: r1(allLatency.p50),
    p95: r1(allLatency.p95),
    p99: r1(allLatency.p99),
  });

  // Throughput curve: the last full window against the best one, on answers the class should give.
  const full = windowRate.filter((x) => x.span >= windowSeconds * 0.999);
  const curve = full.length ? full : windowRate;
  const best = curve.reduce((a, b) => (b.okRate > a.okRate ? b : a));
  const last = curve[curve.length - 1];
  const flat = last.okRate >= 0.8 * best.okRate;
  const passedChecks = checks.every((c) => c.pass);
  const passed = totals.s5xx === 0 && totals.conn === 0 && totals.unexpected4xx + totals.other === 0 && flat && passedChecks;

  const firstError = [...signatures.values()].sort((a, b) => parseFloat(a.first) - parseFloat(b.first))[0];
  const memoryCurve = memory.map((m) => m?.workerdMb ?? "?").join(" → ");
  const notes = [
    `Verdict: ${passed ? "PASS" : "FAIL"} — 5xx ${totals.s5xx}, connection errors ${totals.conn}, unexpected 4xx/other ${totals.unexpected4xx + totals.other}, throughput curve ${flat ? "flat" : "NOT flat"}, consistency checks ${passedChecks ? "all pass" : `${checks.filter((c) => !c.pass).length} fail`}.`,
    `Throughput curve (ok answers/s, full windows): ${curve.map((x) => Math.round(x.okRate)).join(" → ")}; last window ${Math.round(last.okRate)}/s vs best ${Math.round(best.okRate)}/s (window ${best.w + 1}) = ${r1(last.okRate / best.okRate)}× (needs ≥ 0.8×): ${flat ? "flat" : "DROPS"}.`,
    `Setup: tenant ${tenantId}, ${ruleCount} Quotas Rules (half Account+Supplier, 20% Account, 15% Supplier, 15% per store; ${DIRECTORY_ACCOUNTS} accounts, ${SUPPLIERS} suppliers, ${STORES} stores; seeded 8 in flight), default minimum 5,000, ${DIRECTORY_ACCOUNTS} directory accounts, ${operationCount} ACTIVE Operations × ${lineCount} lines (${operations.filter((o) => o.type === "PRIVATE").length} PRIVATE with ${ATTACHED_ACCOUNTS} accounts attached), ${DRAFT_OPERATIONS} DRAFT Operations for PUT lines, one ACCOUNT key (u_0); seeding took ${r1(seedSeconds)} s.`,
    `Load: ${concurrency} requests in flight for ${r1(runSeconds)} s (${totals.count} requests, ${ruleUpdates} rule updates), windows of ${windowSeconds} s, PRNG seed ${seed}, timeout ${timeoutMs / 1000} s; mix ${mix.map(([n, w]) => `${n} ${r1((100 * w) / totalWeight)}%`).join(", ")}.`,
    `Memory (VmRSS of the workerd processes under this runner, pids ${memory.at(-1)?.workerdPids?.join(",") || memoryAtStart.workerdPids.join(",") || "none found"}): ${memoryAtStart.workerdMb ?? "?"} MB before the mix, then per window ${memoryCurve} MB; wrangler (node) ${memoryAtStart.wranglerMb ?? "?"} → ${memory.at(-1)?.wranglerMb ?? "?"} MB; load generator ${memory.at(-1)?.clientMb} MB.`,
    `workerd RSS per process (MB), before the mix and per window: ${[memoryAtStart, ...memory].map((m) => JSON.stringify(m?.perPid ?? {})).join(" → ")}.`,
    `"load 1m" is the machine's 1-minute load average at the end of the window (2 cores are shared by the load generator, wrangler, workerd and anything else running): a throughput drop under a high load may be the machine, not the Worker.`,
    `Latency columns are ms on the client over answered requests (connection errors and timeouts are counted, not timed); "4xx unexp" counts any answer the class should not give that is not 5xx; ok/s counts only the answers the class should give.`,
    ...checks.map((c) => `Check ${c.pass ? "PASS" : "FAIL"}: ${c.name}: ${c.detail}`),
    firstError
      ? `First unexpected answer at ${firstError.first} (${firstError.example.class} ${firstError.example.status}); requests per class answered by then, this one included: ${JSON.stringify(firstError.classCounts)}.`
      : "No unexpected answer.",
    ...[...signatures.entries()]
      .sort((a, b) => b[1].count - a[1].count)
      .slice(0, 10)
      .map(([, s]) => `Error kind ×${s.count} (first at ${s.first}): ${JSON.stringify(s.example)}`),
    ...errorBodies.map((e, i) => `Error body ${i + 1}: ${JSON.stringify(e)}`),
    `cartCount and orderCount are not part of the Operation representation, so they are checked through GET /v1/operations/:id/orders (orders) and cart.created events (carts).`,
  ];
  return {
    title: `Soak: ${concurrency} in flight for ${seconds} s, mixed workload on one tenant (${ruleCount} rules, ${operationCount} × ${lineCount} lines)`,
    rows,
    notes,
  };
}

function safeJson(text) {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

function summarizeOutcomes(attempts) {
  const counts = new Map();
  for (const [, a] of attempts) counts.set(a.outcome, (counts.get(a.outcome) ?? 0) + 1);
  return [...counts].map(([k, v]) => `${k} ×${v}`).join(", ") || "none";
}
