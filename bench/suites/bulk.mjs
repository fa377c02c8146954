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
  const updates = await ctx.measure((round) => putRules(updater, rules(2000, round + 1)), {
    iterations: ROUNDS,
    warmup: 1,
    label: "PUT 2000 rules, all changed",
  });
  const created = ctx.summarize(creates);
  rows.push({
    case: "PUT 2000 rules, all new (5 tenants)",
    p50: r(created.p50),
    max: r(created.max),
    goal: "≤ 1000 ms",
    met: created.max <= 1000 ? "yes" : "no",
  });
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
    { rounds: ROUNDS, warmup: 2, label: "PUT 5000 rules vs raw upsert" },
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

  // ---- CSV export of 5000 lines against the same lines as JSON pages of 1000 ---------------------
  const { operator: exporter } = await ctx.newTenant();
  const operationId = (
    await ctx.expect(
      exporter,
      "POST",
      "/v1/operations",
      { code: `BULK-${Date.now()}`, name: { en: "Bulk" }, type: "PRIVATE", startDate: "2027-03-01T00:00:00Z", endDate: "2027-04-30T23:59:59Z" },
      201,
    )
  ).body.id;
  const lines = JSON.stringify(
    Array.from({ length: 5000 }, (_, i) => ({
      variantExternalId: `SKU-${String(i).padStart(5, "0")}`,
      variantName: { en: `Shirt ${i}, size ${i % 4}`, fr: `Chemise ${i}` },
      minQuantity: i % 4,
      maxQuantity: 12 + (i % 7),
      recommendedQuantity: i % 5 === 0 ? null : 6,
    })),
  );
  await ctx.expect(exporter, "PUT", `/v1/operations/${operationId}/lines`, lines, 200);
  const jsonPages = async () => {
    let token;
    let items = 0;
    const started = performance.now();
    do {
      const page = await ctx.expect(
        exporter,
        "GET",
        `/v1/operations/${operationId}/lines?limit=1000${token ? `&nextToken=${encodeURIComponent(token)}` : ""}`,
        undefined,
        200,
      );
      items += page.body.items.length;
      token = page.body.nextToken;
    } while (token);
    if (items !== 5000) throw new Error(`read ${items} lines`);
    return performance.now() - started;
  };
  const csvExport = async () => {
    const response = await ctx.request(exporter, "GET", `/v1/operations/${operationId}/lines`, undefined, { accept: "text/csv" });
    if (response.status !== 200 || response.body.split("\r\n").length !== 5002) throw new Error(`CSV export answered ${response.status}`);
    return response.ms;
  };
  const exported = await ctx.sideBySide({ csv: csvExport, json: jsonPages }, { rounds: ROUNDS * 2, warmup: 2, label: "CSV export vs JSON pages" });
  rows.push({
    case: "export 5000 lines as one CSV, against 5 JSON pages of 1000",
    p50: r(exported.csv.p50),
    max: r(exported.csv.max),
    rawP50: r(exported.json.p50),
    ratioP50: ratio(exported.csv.p50, exported.json.p50),
    goal: "≤ 2× JSON",
    met: exported.csv.p50 <= 2 * exported.json.p50 ? "yes" : "no",
  });
  const csvText = (await ctx.request(exporter, "GET", `/v1/operations/${operationId}/lines`, undefined, { accept: "text/csv" })).body;
  const imported = await ctx.measure(
    async () => {
      const response = await fetch(new URL(`/v1/operations/${operationId}/lines`, ctx.baseUrl), {
        method: "PUT",
        headers: { "svc-client": "OPERATOR", "svc-api-key": exporter.key, "content-type": "text/csv" },
        body: csvText,
      });
      await response.text();
      if (response.status !== 200) throw new Error(`CSV import answered ${response.status}`);
    },
    { iterations: ROUNDS, warmup: 1, label: "CSV import of 5000 lines" },
  );
  const jsonPut = await ctx.measure(() => ctx.expect(exporter, "PUT", `/v1/operations/${operationId}/lines`, lines, 200), {
    iterations: ROUNDS,
    warmup: 1,
    label: "JSON PUT of 5000 lines",
  });
  rows.push({
    case: "import the same 5000 lines as CSV (PUT, text/csv), against the JSON PUT",
    p50: r(imported.p50),
    max: r(imported.max),
    rawP50: r(jsonPut.p50),
    ratioP50: ratio(imported.p50, jsonPut.p50),
    goal: "",
    met: "",
  });

  notes.push(
    "CSV rows: 'rawP50' is the JSON way measured alongside (5 pages of 1000 walked with nextToken; the JSON PUT of the same lines)",
    "ms on the client, over loopback; 'all new' is one call per fresh tenant, 'all changed' re-sends the tenant's rules with every minimum changed",
    `one by one: ${bodies.length} POST /v1/buying-policies/quotas/rules with 10 in flight, wall time for all (${ratio(oneByOneMs, created.p50)}× the single bulk call)`,
    "raw: PUT /v1/__bench/raw-rules, one `insert … select … from json_each(?) … on conflict (the scope's unique index) do update` of the same 5000 rows, interleaved round by round with the API call",
  );
  return { title: "Rules in bulk, and CSV", rows, notes };
}
