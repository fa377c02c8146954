// Issue 2: GET /v1/operations page latency over 300 Operations, against the constant route (the floor
// every authenticated /v1 request pays), measured side by side.

const OPERATION_COUNT = 300;
const ROUNDS = 100;
const WARMUP = 5;

const SEASONS = [
  { en: "Spring", fr: "Printemps", de: "Frühling" },
  { en: "Summer", fr: "Été", de: "Sommer" },
  { en: "Autumn", fr: "Automne", de: "Herbst" },
  { en: "Winter", fr: "Hiver", de: "Winter" },
  { en: "Back to school", fr: "Rentrée", de: "Schulanfang" },
  { en: "Holiday", fr: "Fêtes", de: "Feiertage" },
];
const THEMES = [
  { en: "outerwear", fr: "manteaux", de: "Oberbekleidung" },
  { en: "footwear", fr: "chaussures", de: "Schuhe" },
  { en: "kids", fr: "enfants", de: "Kinder" },
  { en: "essentials", fr: "essentiels", de: "Basics" },
  { en: "premium", fr: "premium", de: "Premium" },
];

const DAY = 86_400_000;
const iso = (ms) => `${new Date(ms).toISOString().slice(0, 19)}Z`;

function operationBody(index, next) {
  const season = SEASONS[index % SEASONS.length];
  const theme = THEMES[Math.floor(next() * THEMES.length)];
  const year = 2026 + Math.floor(index / 100);
  const start = Date.UTC(2026, 0, 1) + Math.floor(next() * 900) * DAY;
  const end = start + (14 + Math.floor(next() * 120)) * DAY;
  const owners = Array.from({ length: 1 + Math.floor(next() * 3) }, () => `u_${1 + Math.floor(next() * 12)}`);
  return {
    code: `OPS-${String(index).padStart(4, "0")}`,
    externalId: index % 3 === 0 ? `ext-${index}` : null,
    name: {
      en: `${season.en} ${year} ${theme.en} #${index}`,
      fr: `${season.fr} ${year} ${theme.fr} n°${index}`,
      ...(index % 2 === 0 && { de: `${season.de} ${year} ${theme.de} Nr. ${index}` }),
    },
    description: { en: `Campaign ${index}: ${season.en.toLowerCase()} ${theme.en}.` },
    type: index % 4 === 0 ? "PRIVATE" : "PUBLIC",
    startDate: iso(start),
    endDate: iso(end),
    ownerIds: [...new Set(owners)],
  };
}

/** Seeds the tenant; returns how statuses were reached (ACTIVE needs a line, so the lines route). */
async function seed(ctx, operator) {
  const next = ctx.random(2);
  const bodies = Array.from({ length: OPERATION_COUNT }, (_, i) => operationBody(i, next));
  const ids = new Array(OPERATION_COUNT);
  await ctx.pool(
    OPERATION_COUNT,
    4,
    async (i) => {
      ids[i] = (await ctx.expect(operator, "POST", "/v1/operations", bodies[i], 201)).body.id;
    },
    { label: `creating ${OPERATION_COUNT} Operations` },
  );

  // One line makes DRAFT → ACTIVE possible; without the lines route, ACTIVE cannot be reached.
  const probe = await ctx.request(operator, "PUT", `/v1/operations/${ids[0]}/lines`, [{ variantExternalId: "SKU-1", minQuantity: 0, maxQuantity: 10 }]);
  const canActivate = probe.status === 200;
  const statuses = { DRAFT: 0, ACTIVE: 0, INACTIVE: 0 };
  await ctx.pool(
    OPERATION_COUNT,
    4,
    async (i) => {
      const plan = i % 3; // 0: stays DRAFT, 1: INACTIVE, 2: ACTIVE (or INACTIVE without lines)
      const path = `/v1/operations/${ids[i]}`;
      if (plan === 0) {
        statuses.DRAFT++;
        return;
      }
      if (plan === 2 && canActivate) {
        if (i !== 0) {
          await ctx.expect(operator, "PUT", `${path}/lines`, [{ variantExternalId: `SKU-${i}`, minQuantity: 0, maxQuantity: 10 }], 200);
        }
        await ctx.expect(operator, "POST", `${path}/status`, { status: "ACTIVE" }, 200);
        if (i % 2 === 0) {
          // A round trip through INACTIVE, so versions and updatedAt differ too.
          await ctx.expect(operator, "POST", `${path}/status`, { status: "INACTIVE" }, 200);
          await ctx.expect(operator, "POST", `${path}/status`, { status: "ACTIVE" }, 200);
        }
        statuses.ACTIVE++;
        return;
      }
      await ctx.expect(operator, "POST", `${path}/status`, { status: "INACTIVE" }, 200);
      statuses.INACTIVE++;
    },
    { label: "giving the Operations their statuses" },
  );
  return { canActivate, statuses };
}

async function walk(ctx, operator, query, maxPages) {
  let nextToken;
  let pages = 0;
  let items = 0;
  do {
    const params = new URLSearchParams({ ...query, ...(nextToken && { nextToken }) });
    const response = await ctx.expect(operator, "GET", `/v1/operations?${params}`, undefined, 200);
    items += response.body.items.length;
    nextToken = response.body.nextToken;
    pages++;
  } while (nextToken && pages < maxPages);
  return { pages, items };
}

export default async function operations(ctx) {
  const { operator } = await ctx.newTenant();
  const seeded = await seed(ctx, operator);
  const floor = () => ctx.expect(operator, "GET", "/v1/__bench/constant", undefined, 200);

  const filterStatus = seeded.canActivate ? "ACTIVE" : "INACTIVE";
  const scenarios = [
    { name: "no filter", query: {} },
    { name: `status=${filterStatus}`, query: { status: filterStatus } },
    { name: "name substring", query: { name: "printemps" } },
    { name: "startDate range, sort=-startDate", query: { startDateFrom: "2026-06-01T00:00:00Z", startDateTo: "2027-06-30T23:59:59Z", sort: "-startDate" } },
    { name: "ownerIds, sort=name", query: { ownerIds: "u_3,u_7", sort: "name" } },
  ];

  const rows = [];
  const row = (name, limit, items, result) =>
    rows.push({
      name,
      limit,
      items,
      p50: ctx.round(result.list.p50),
      p99: ctx.round(result.list.p99),
      floorP50: ctx.round(result.constant.p50),
      floorP99: ctx.round(result.constant.p99),
      "×floor p50": Math.round(result.list.ratioP50 * 100) / 100,
      "×floor p99": Math.round(result.list.ratioP99 * 100) / 100,
    });

  const floorAlone = await ctx.measure(floor, { iterations: ROUNDS * 2, warmup: WARMUP });
  rows.push({ name: "constant route (floor, alone)", limit: "", items: "", p50: ctx.round(floorAlone.p50), p99: ctx.round(floorAlone.p99) });

  for (const limit of [50, 500]) {
    for (const scenario of scenarios) {
      const params = new URLSearchParams({ ...scenario.query, limit: String(limit) });
      const path = `/v1/operations?${params}`;
      const first = await ctx.expect(operator, "GET", path, undefined, 200);
      if (!first.body.items.length) throw new Error(`${scenario.name} matched nothing: the bench would time an empty page`);
      const result = await ctx.sideBySide(
        { list: () => ctx.expect(operator, "GET", path, undefined, 200), constant: floor },
        { rounds: ROUNDS, warmup: WARMUP, label: `${scenario.name}, limit=${limit} vs constant route` },
      );
      row(scenario.name, limit, first.body.items.length, result);
    }
  }

  // Keyset pages deep in the list: every sample walks the first 6 pages of 50 (the whole tenant).
  const walked = await walk(ctx, operator, { limit: "50" }, 6);
  const walkResult = await ctx.sideBySide(
    {
      list: async () => {
        const started = performance.now();
        const { pages } = await walk(ctx, operator, { limit: "50" }, 6);
        return (performance.now() - started) / pages;
      },
      constant: floor,
    },
    { rounds: Math.ceil(ROUNDS / 4), warmup: 2, label: "walking 6 pages by nextToken vs constant route" },
  );
  row(`walk ${walked.pages} pages by nextToken (per page)`, 50, walked.items, walkResult);

  const notes = [
    `${OPERATION_COUNT} Operations in one fresh tenant: ${seeded.statuses.DRAFT} DRAFT, ${seeded.statuses.ACTIVE} ACTIVE, ${seeded.statuses.INACTIVE} INACTIVE; names in en/fr(/de); 1-3 owners each.`,
    `Each row: ${ROUNDS} rounds interleaved with the constant route (GET /v1/__bench/constant: same middleware, no query), after ${WARMUP} warm-up rounds; ms, wall time on the client.`,
    "items = size of the first page for that query.",
  ];
  if (!seeded.canActivate) notes.push("The lines route answered 404, so no Operation could become ACTIVE; the status filter uses INACTIVE.");
  return { title: `GET /v1/operations over ${OPERATION_COUNT} Operations (p50/p99 ms, ratio to the constant route)`, rows, notes };
}
