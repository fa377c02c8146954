// Rules in bulk (issue 13): PUT /v1/buying-policies/quotas/rules against the one-rule-per-request way,
// and against its floor, PUT /v1/__bench/raw-rules (one bare json_each upsert of the same rows by
// scope: no read, no validation, no counts, no version bump, no event), side by side.

const ROUNDS = 10;

const r = (ms) => Math.round(ms * 10) / 10;
const ratio = (a, b) => Math.round((a / b) * 100) / 100;

/** `count` rules over distinct scopes; `round` changes every minimum, so a repeat updates them all. */
function rules(count, round = 0) {
  return JSON.stringify(
    Array.from({ length: count }, (_, i) => ({
      accountId: `ACC-${String(i).padStart(5, "0")}`,
      supplierId: i % 3 === 0 ? null : `SUP-${i % 11}`,
      storeId: i % 5 === 0 ? `STORE-${i % 4}` : null,
      minimum: 1000 + i + round,
    })),
  );
}

export default async function bulkSuite(ctx) {
  const rows = [];
  const notes = [];
  const putRules = (caller, body) => ctx.expect(caller, "PUT", "/v1/buying-policies/quotas/rules", body, 200);
  const rawRules = (caller, body) => ctx.expect(caller, "PUT", "/v1/__bench/raw-rules", body, 200);

  // ---- 2000 rules: one call, against 2000 calls of one rule ------------------------------------
  const twoThousand = rules(2000);
  const creates = [];
  for (let i = 0; i < 5; i++) {
    const { operator } = await ctx.newTenant();
    creates.push((await putRules(operator, twoThousand)).ms);
  }
  const { operator: updater } = await ctx.newTenant();
  await putRules(updater, twoThousand);
  const updates = await ctx.measure((round) => putRules(updater, rules(2000, round + 1)), { iterations: ROUNDS, warmup: 1 });
  const created = ctx.summarize(creates);
  rows.push({ case: "PUT 2000 rules, all new (5 tenants)", p50: r(created.p50), max: r(created.max), goal: "≤ 1000 ms", met: created.max <= 1000 ? "yes" : "no" });
  rows.push({ case: "PUT 2000 rules, all changed", p50: r(updates.p50), max: r(updates.max), goal: "≤ 1000 ms", met: updates.max <= 1000 ? "yes" : "no" });

  const { operator: oneByOne } = await ctx.newTenant();
  const bodies = JSON.parse(twoThousand);
  const started = performance.now();
  await ctx.pool(bodies.length, 10, (i) => ctx.expect(oneByOne, "POST", "/v1/buying-policies/quotas/rules", bodies[i], 201));
  const oneByOneMs = performance.now() - started;
  rows.push({ case: "the same 2000 as POSTs of one rule, 10 in flight", p50: r(oneByOneMs), max: r(oneByOneMs), goal: "", met: "" });

  // ---- 5000 rules: the API against its floor, side by side -------------------------------------
  const [{ operator: api }, { operator: raw }] = [await ctx.newTenant(), await ctx.newTenant()];
  await putRules(api, rules(5000));
  await rawRules(raw, rules(5000));
  const fiveThousand = Array.from({ length: ROUNDS + 2 }, (_, round) => rules(5000, round + 1));
  const sideBySide = await ctx.sideBySide(
    {
      api: async (round) => (await putRules(api, fiveThousand[round + 2])).ms,
      raw: async (round) => (await rawRules(raw, fiveThousand[round + 2])).ms,
    },
    { rounds: ROUNDS, warmup: 2 },
  );
  rows.push({
    case: "PUT 5000 rules, all changed, against the raw upsert",
    p50: r(sideBySide.api.p50),
    max: r(sideBySide.api.max),
    rawP50: r(sideBySide.raw.p50),
    ratioP50: ratio(sideBySide.api.p50, sideBySide.raw.p50),
    goal: "≤ 3× raw",
    met: sideBySide.api.p50 <= 3 * sideBySide.raw.p50 ? "yes" : "no",
  });

  notes.push(
    "ms on the client, over loopback; 'all new' is one call per fresh tenant, 'all changed' re-sends the tenant's rules with every minimum changed",
    `one by one: ${bodies.length} POST /v1/buying-policies/quotas/rules with 10 in flight, wall time for all (${ratio(oneByOneMs, created.p50)}× the single bulk call)`,
    "raw: PUT /v1/__bench/raw-rules, one `insert … select … from json_each(?) … on conflict (the scope's unique index) do update` of the same 5000 rows, interleaved round by round with the API call",
  );
  return { title: "Rules in bulk", rows, notes };
}
