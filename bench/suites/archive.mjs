// The history archive at size: a tenant of BENCH_ARCHIVE_RECORDS change records (10 M by default),
// loaded directly in the shard's format (bench/worker/queries.ts seedHistory: line updates of one
// field, 5000 per set, as re-PUTs of 5000 lines write them), plus one Operation of 5000 lines written
// through the API and re-PUT; then the real archive job (the hourly cron's code) moves all of it to the
// local R2 bucket, run after run. Measured: the shard's bytes in use before and after, the bucket's
// bytes, bytes per record, records moved per second, and the reads of archived ranges against their
// goals: the first page of a day of 1 M archived records, and `asOf` of the 5000-line Operation at an
// archived version.

const RECORDS = Number(process.env.BENCH_ARCHIVE_RECORDS ?? 10_000_000);
/** One day holds this many of them: the read goal's "day of 1 M records". */
const BUSY_DAY_RECORDS = 1_000_000;
const RECORDS_PER_SET = 5000;
/** Sets seeded per call (100k records: one batch well inside a request). */
const SETS_PER_CALL = 20;
/** The busy day's sets spread over this many Operations; every other day over FILLER_OPERATIONS. */
const BUSY_OPERATIONS = 20;
const FILLER_OPERATIONS = 4;
const FILLER_SETS_PER_DAY = 20;
/** The Operation written through the API: its lines and how many times it is re-PUT (every line changed). */
const LINES = 5000;
const RE_PUTS = 5;
const READ_ROUNDS = 15;
const DAY = 86_400_000;
/** Where the seeded history starts: well past the 90-day hot window. */
const BUSY_DAY_AGO = 120;

const sku = (i) => `SKU-${String(i).padStart(5, "0")}`;
/** A well-formed Operation id (op_ and 26 Crockford characters) for a seeded Operation, deleted since as far as history cares. */
const seededOperation = (kind, n) => `op_0000000000${kind}${String(n).padStart(16 - kind.length, "0")}`;
const linesBody = (max) =>
  JSON.stringify(
    Array.from({ length: LINES }, (_, i) => ({
      variantExternalId: sku(i),
      variantName: { en: `Shirt ${i}`, fr: `Chemise ${i}` },
      minQuantity: 0,
      maxQuantity: max(i),
    })),
  );
const mb = (bytes) => Math.round(bytes / 1e4) / 100;

export default async function archive(ctx) {
  const { operator } = await ctx.newTenant({ shard: "SHARD_1" });
  const sizes = async () => (await ctx.expect(operator, "GET", "/v1/__bench/archive-sizes", undefined, 200)).body;
  const today = Math.floor(Date.now() / DAY) * DAY;
  const empty = await sizes();

  // ---- the tenant: one busy day of 1 M records, the rest a day of 100k at a time before it
  const versions = new Map();
  const calls = [];
  const addSets = (operationId, firstMs, stepMs, sets) => {
    for (let done = 0; done < sets; done += SETS_PER_CALL) {
      const count = Math.min(SETS_PER_CALL, sets - done);
      const firstVersion = (versions.get(operationId) ?? 0) + 1;
      versions.set(operationId, firstVersion + count - 1);
      calls.push({ operationId, firstMs: firstMs + done * stepMs, stepMs, firstVersion, sets: count, recordsPerSet: RECORDS_PER_SET });
    }
  };
  const busyDay = today - BUSY_DAY_AGO * DAY;
  const busySetsPerOperation = BUSY_DAY_RECORDS / RECORDS_PER_SET / BUSY_OPERATIONS;
  const fillerDays = Math.max(0, Math.ceil((RECORDS - BUSY_DAY_RECORDS) / (FILLER_SETS_PER_DAY * RECORDS_PER_SET)));
  for (let d = fillerDays; d >= 1; d--) {
    const day = busyDay - d * DAY;
    for (let o = 0; o < FILLER_OPERATIONS; o++)
      addSets(seededOperation("FILL", (d * FILLER_OPERATIONS + o) % 300), day + 3_600_000 + o * 60_000, 600_000, FILLER_SETS_PER_DAY / FILLER_OPERATIONS);
  }
  for (let o = 0; o < BUSY_OPERATIONS; o++) addSets(seededOperation("BUSY", o), busyDay + 3_600_000 + o * 1_000, 300_000, busySetsPerOperation);
  ctx.log(`seeding ${calls.length} calls of up to ${SETS_PER_CALL * RECORDS_PER_SET} records (${fillerDays} days of 100k, then 1 day of 1 M)`);
  const seedStarted = performance.now();
  let seeded = 0;
  await ctx.pool(
    calls.length,
    1,
    async (i) => {
      seeded += (await ctx.expect(operator, "PUT", "/v1/__bench/seed-history", calls[i], 200)).body.written;
    },
    { label: "seeding history in the shard's format" },
  );
  const seedSeconds = (performance.now() - seedStarted) / 1000;

  // The Operation whose archived version asOf reads: written through the API (creation, 5000 lines, re-PUTs of every line).
  const created = await ctx.expect(
    operator,
    "POST",
    "/v1/operations",
    { code: "ARCHIVED-1", name: { en: "Archived" }, type: "PUBLIC", startDate: "2020-01-01T00:00:00Z", endDate: "2099-12-31T23:59:59Z" },
    201,
  );
  const operationId = created.body.id;
  await ctx.expect(
    operator,
    "PUT",
    `/v1/operations/${operationId}/lines`,
    linesBody(() => 24),
    200,
  );
  const { version: linesVersion } = (await ctx.expect(operator, "GET", `/v1/operations/${operationId}`, undefined, 200)).body;
  for (let round = 1; round <= RE_PUTS; round++)
    await ctx.expect(
      operator,
      "PUT",
      `/v1/operations/${operationId}/lines`,
      linesBody((i) => 24 + ((i + round) % 50)),
      200,
    );
  const current = (await ctx.expect(operator, "GET", `/v1/operations/${operationId}/lines?limit=1000`, undefined, 200)).body.items;
  const then = (await ctx.expect(operator, "GET", `/v1/operations/${operationId}/lines?asOf=${linesVersion}&limit=1000`, undefined, 200)).body.items;
  const before = await sizes();

  // ---- the job, run after run (each as the hourly cron runs it, with its 20 s budget), until nothing is left
  const archiveBefore = Date.now() + 1;
  const moveStarted = performance.now();
  ctx.log(`archiving ${before.records} records`);
  const totals = { runs: 0, objects: 0, sets: 0, records: 0, bytes: 0, jobMs: 0 };
  for (;;) {
    const run = (await ctx.expect(operator, "POST", "/v1/__bench/archive", { archiveBefore, budgetMs: 20_000 }, 200)).body;
    if (run.failed) throw new Error(`the archive job failed on the bench tenant: ${JSON.stringify(run)}`);
    totals.runs++;
    for (const key of ["objects", "sets", "records", "bytes"]) totals[key] += run[key];
    totals.jobMs += run.ms;
    ctx.log(`run ${totals.runs}: ${run.objects} objects, ${run.records} records in ${run.ms} ms (${totals.records}/${before.records})`);
    if (!run.objects && !run.more) break;
  }
  const moveSeconds = (performance.now() - moveStarted) / 1000;
  const after = await sizes();
  if (after.records !== 0 || after.archivedRecords !== before.records || after.bucketObjects !== after.objects) {
    throw new Error(`the archive does not hold exactly what the shard held: before ${JSON.stringify(before)}, after ${JSON.stringify(after)}`);
  }

  // ---- reads of the archived ranges
  const rows = [];
  const timed = async (name, call, goalMs) => {
    const stats = await ctx.measure(call, { iterations: READ_ROUNDS, warmup: 2, label: name });
    rows.push({
      name,
      p50: ctx.round(stats.p50),
      p99: ctx.round(stats.p99),
      ...(goalMs && { goal: `≤ ${goalMs} ms`, met: stats.p50 <= goalMs ? "yes" : "no" }),
    });
  };
  const day = (offset) => new Date(busyDay + offset).toISOString();
  const dayRange = `from=${day(0)}&to=${day(DAY - 1)}`;
  const page = (path) => async () => {
    const answer = await ctx.expect(operator, "GET", path, undefined, 200);
    if (answer.body.items && !answer.body.items.length) throw new Error(`${path}: an empty page`);
    return answer.ms;
  };
  await timed(
    `GET /v1/history first page of 50, a day of ${BUSY_DAY_RECORDS / 1e6} M archived records (newest first)`,
    page(`/v1/history?${dayRange}&limit=50`),
    500,
  );
  await timed("the same, oldest first (sort=at)", page(`/v1/history?${dayRange}&limit=50&sort=at`), 500);
  await timed("the same, 500 records (the largest page)", page(`/v1/history?${dayRange}&limit=500`), 500);
  await timed("GET /v1/history first page of 50, the whole tenant (newest first: the API-written Operation)", page("/v1/history?limit=50"));
  await timed(
    `GET /v1/operations/{id}/history first page of 50, one of the busy day's Operations (${busySetsPerOperation * RECORDS_PER_SET} records)`,
    page(`/v1/operations/${seededOperation("BUSY", 7)}/history?limit=50`),
    500,
  );
  const asOfPath = `/v1/operations/${operationId}/lines?asOf=${linesVersion}`;
  const asOfAll = async () => {
    let ms = 0;
    let token = null;
    let lines = 0;
    do {
      const answer = await ctx.expect(operator, "GET", `${asOfPath}&limit=1000${token ? `&nextToken=${encodeURIComponent(token)}` : ""}`, undefined, 200);
      ms += answer.ms;
      lines += answer.body.items.length;
      token = answer.body.nextToken;
    } while (token);
    if (lines !== LINES) throw new Error(`asOf answered ${lines} lines, not ${LINES}`);
    return ms;
  };
  await timed(
    `lines?asOf an archived version of ${LINES} lines (${RE_PUTS} versions of ${LINES} changed lines after it), first page of 50`,
    page(`${asOfPath}&limit=50`),
    2000,
  );
  await timed(`lines?asOf the same version, all ${LINES} lines (5 pages of 1000)`, asOfAll, 2000);
  await timed(`GET /v1/operations/{id}/versions/${linesVersion} (archived)`, page(`/v1/operations/${operationId}/versions/${linesVersion}`), 2000);
  await timed("current lines, first page of 50 (beside: the hot read)", page(`/v1/operations/${operationId}/lines?limit=50`));
  const archivedThen = (await ctx.expect(operator, "GET", `${asOfPath}&limit=1000`, undefined, 200)).body.items;
  if (JSON.stringify(archivedThen) !== JSON.stringify(then) || JSON.stringify(current) === JSON.stringify(then)) {
    throw new Error("asOf of the archived version does not answer what it answered before the archive");
  }

  const moved = before.records;
  const historyBytes = before.shardBytes - empty.shardBytes;
  const storage = [
    { figure: "records archived", value: moved },
    { figure: "sets / objects written", value: `${totals.sets} / ${totals.objects}` },
    { figure: "D1: the history's bytes in the shard before (MB: its growth while seeded)", value: mb(historyBytes) },
    { figure: "D1: shard file before / after archiving (MB)", value: `${mb(before.shardBytes)} / ${mb(after.shardBytes)}` },
    { figure: "D1: the tenant's sets / records left in the shard after", value: `${after.sets} / ${after.records}` },
    { figure: "D1 bytes per record", value: Math.round(historyBytes / moved) },
    { figure: "R2 bytes (MB)", value: mb(after.bucketBytes) },
    { figure: "R2 bytes per record", value: Math.round((after.bucketBytes / moved) * 10) / 10 },
    { figure: "D1 bytes : R2 bytes", value: `${Math.round((historyBytes / after.bucketBytes) * 10) / 10} : 1` },
    { figure: "job runs (20 s budget each)", value: totals.runs },
    { figure: "records moved per second (wall, all runs)", value: Math.round(moved / moveSeconds) },
    { figure: "records moved per second (inside the job)", value: Math.round(moved / (totals.jobMs / 1000)) },
    { figure: "seeding (s, not part of the figures)", value: Math.round(seedSeconds) },
  ];
  return {
    title: `History archive: ${moved.toLocaleString("en")} records moved by the real job to the local R2 bucket; reads of archived ranges`,
    tables: [
      { title: `History archive: reads of archived ranges (p50 / p99 ms over ${READ_ROUNDS} rounds)`, rows },
      { title: "History archive: storage and the move", rows: storage },
    ],
    storage: { before, after, totals, moveSeconds, seedSeconds, seeded },
    notes: [
      `tenant: ${seeded.toLocaleString("en")} line records seeded in the shard's format (${fillerDays} days of 100k in ${FILLER_OPERATIONS} Operations, one day of 1 M in ${BUSY_OPERATIONS}), plus an Operation of ${LINES} lines written through the API and re-PUT ${RE_PUTS} times (every line changed)`,
      "each record a line update of one field; the archive job ran with its boundary at the run's start (everything older archived), 20 s budget a run, back to back",
      "shard bytes: the database's size as D1 reports it on every result (size_after); R2 bytes: the objects' sizes as the bucket lists them",
    ],
  };
}
