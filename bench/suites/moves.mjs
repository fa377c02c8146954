// Moving a tenant to another shard while it serves (POST /v1/tenant/moves), side by side for a tenant
// of 100,000 and of 1,500,000 line rows (BENCH_MOVE_LINES=100000,1500000 by default; a comma list of
// other sizes, multiples of 5000). Steady traffic runs throughout: three writers (a rule created, an
// Operation renamed, 10 lines of a DRAFT Operation PUT with new values: 10–16 writes a second together,
// each with its own Idempotency-Key, retried after the fence's 503) and two readers (a page of lines,
// an Operation), each one request at a time with a short pause. Measured: the move's total time and
// rows/s, its catch-up (rounds, what waited, the rates of the tenant's writes and of the move), the
// longest write fence (the move's own figure, and as the writers saw it), the p99 of reads and writes
// while the move runs against before it, every answer other than a success or the fence's 503, and
// (after the move) every acknowledged write read back.

const LINES_PER_OPERATION = 5000;
/** Traffic runs this long before "before" is measured: the seeding's writes settle (WAL, caches, JIT) first. */
const WARMUP_MS = 10_000;
/** Long enough that the p99 of "before" is steady (~2500 reads and writes): at 20 s it ranged 41–80 ms run to run. */
const BEFORE_MS = 60_000;
const AFTER_SWITCH_MS = 3_000;
const PAUSE_MS = 50;
const POLL_MS = 250;
/** A move that has not switched by then fails the suite (its state is in the error). */
const MOVE_TIMEOUT_MS = 120 * 60_000;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const r = (ms) => Math.round(ms * 10) / 10;
const ratio = (a, b) => Math.round((a / b) * 100) / 100;
const thousands = (n) => Number(n).toLocaleString("en-US");

function sizes() {
  const listed = (process.env.BENCH_MOVE_LINES ?? "100000,1500000").split(",").map((value) => Number(value.trim()));
  if (!listed.length || listed.some((n) => !Number.isInteger(n) || n < LINES_PER_OPERATION || n % LINES_PER_OPERATION)) {
    throw new Error(`BENCH_MOVE_LINES must list multiples of ${LINES_PER_OPERATION}, got ${process.env.BENCH_MOVE_LINES}`);
  }
  return listed;
}

function linesBody(operation) {
  return JSON.stringify(
    Array.from({ length: LINES_PER_OPERATION }, (_, i) => ({
      variantExternalId: `SKU-${String(i).padStart(5, "0")}`,
      variantName: { en: `Shirt ${i} size ${i % 4}`, fr: `Chemise ${i} taille ${i % 4}` },
      minQuantity: i % 4,
      maxQuantity: 12 + (i % 7) + (operation % 50),
    })),
  );
}

/** The runner's budget for the suite: each size's move, and its seeding and traffic around it. */
export const timeoutMs = () => sizes().length * (MOVE_TIMEOUT_MS + 15 * 60_000);

let operationNumber = 0;
const operationBody = () => ({
  code: `MOVES-${Date.now().toString(36)}-${++operationNumber}`,
  name: { en: `Moves bench ${operationNumber}` },
  type: "PRIVATE",
  startDate: "2027-03-01T00:00:00Z",
  endDate: "2027-04-30T23:59:59Z",
});

/** The lines a writer PUTs on the DRAFT Operation, each time with new values (every line changes). */
const TEN_LINES = 10;
const tenLines = (i) => Array.from({ length: TEN_LINES }, (_, n) => ({ variantExternalId: `STEADY-${n}`, minQuantity: 0, maxQuantity: 100 + i }));

/** Which part of the move a request started in: before it, while it copies and catches up (served as usual), or after the switch. */
const RUNNING = new Set(["PREPARING", "COPYING", "CATCHING_UP", "VERIFYING", "SWITCHING"]);
const phaseOf = (status) => (status === "WARMUP" ? "warmup" : status === null ? "before" : RUNNING.has(status) ? "during" : "after");

export default async function movesSuite(ctx) {
  const results = [];
  for (const lines of sizes()) results.push(await moveUnderTraffic(ctx, lines));

  const summaryRows = results.map((result) => ({
    tenant: `${thousands(result.lines)} line rows`,
    rowsMoved: result.rows,
    totalS: r(result.totalMs / 1000),
    copyS: result.copyMs === null ? null : r(result.copyMs / 1000),
    rowsPerSec: Math.round(result.rows / (result.totalMs / 1000)),
    writesPerSec: result.writesPerSec,
    catchUpRounds: result.catchUp?.rounds ?? null,
    catchUpS: result.catchUp ? r(result.catchUp.elapsedMs / 1000) : null,
    logPerSecWritten: result.catchUp?.perSecond?.written ?? null,
    logPerSecChecked: result.catchUp?.perSecond?.checked ?? null,
    waitingAtFence: result.catchUp ? result.catchUp.backlog.toApply + result.catchUp.backlog.toCheck : null,
    fenceMs: result.fenceMs,
    fenceTries: result.fenceAttempts,
    writersRefusedMs: result.refusedMs,
    readP99Before: r(result.read.before.p99),
    readP99During: r(result.read.during.p99),
    writeP99Before: r(result.write.before.p99),
    writeP99During: r(result.write.during.p99),
    requests: result.requests,
    errors: result.errors.length,
    lost: result.lost.length,
  }));
  const goalRows = results.flatMap((result) => {
    const size = `${thousands(result.lines)} lines`;
    return [
      { goal: `${size}: longest write fence ≤ 2000 ms`, measured: `${result.fenceMs} ms` },
      { goal: `${size}: the catch-up after the check lets the fence in ≤ 120000 ms`, measured: result.catchUp ? `${result.catchUp.elapsedMs} ms` : "not seen" },
      { goal: `${size}: read p99 while moving ≤ 1.5× before`, measured: `${ratio(result.read.during.p99, result.read.before.p99)}×` },
      { goal: `${size}: write p99 while moving ≤ 1.5× before`, measured: `${ratio(result.write.during.p99, result.write.before.p99)}×` },
      { goal: `${size}: answers other than a success or the fence's 503 ≤ 0`, measured: String(result.errors.length) },
      { goal: `${size}: acknowledged writes lost ≤ 0`, measured: String(result.lost.length) },
    ];
  });
  const timelineRows = results.map((result) => ({
    tenant: `${thousands(result.lines)} line rows`,
    ...Object.fromEntries(result.timeline.map(({ status, atMs }) => [status, r(atMs / 1000)])),
  }));
  const phaseRows = results.flatMap((result) =>
    Object.entries(result.byStatus).map(([status, stats]) => ({
      tenant: `${thousands(result.lines)} line rows`,
      status,
      requests: stats.samples,
      p50: r(stats.p50),
      p99: r(stats.p99),
      max: r(stats.max),
    })),
  );
  const notes = [
    `each tenant: Operations of ${LINES_PER_OPERATION} lines (2 locales) seeded through the API on SHARD_1, then moved to SHARD_2 with keepSourceMinutes 0; rowsMoved counts every row the move copied and checked (lines, their change records, events, …)`,
    `traffic: 3 writers (POST a rule; PATCH an Operation's name; PUT ${TEN_LINES} lines of a DRAFT Operation, every value new), each with its own Idempotency-Key, retried after a 503 tenant_moving; writesPerSec is the writes acknowledged while moving, a second; 2 readers (GET 100 lines of an Operation; GET an Operation); each one request at a time with ${PAUSE_MS} ms between; "before" is ${BEFORE_MS / 1000} s of the same traffic just before the move (after ${WARMUP_MS / 1000} s of it not counted); "during" every request started from the move's start to its switch`,
    "catch-up (the last one, after the check of every row, as the move's status showed it before the switch): catchUpS its time, logPerSecWritten / logPerSecChecked the change log entries a second the tenant wrote and the move checked, waitingAtFence what waited when the status was last read before the switch",
    "fenceMs is the move's own figure (fence set → directory switched, the longest of its cutovers); writersRefusedMs is the longest a writer saw writes refused (first 503 → its retry acknowledged)",
    "lost: every acknowledged rule read back from the list after the move, and the Operation's name equal to the last acknowledged rename",
    "timeline: seconds from the move's start at which the suite's poll (every 250 ms) first saw each status",
    "local wrangler dev runs the Worker, the move's Durable Object and both local D1 databases in one workerd process: the copy and the traffic share its one busy core, which is what the during/before ratios show here; on Cloudflare each D1 database is its own instance",
  ];
  for (const result of results) if (result.errors.length) notes.push(`${thousands(result.lines)} lines, errors: ${result.errors.slice(0, 5).join(" | ")}`);
  return {
    title: "Moving a tenant while it serves (copy, catch up, fence ≤ 2 s, switch)",
    tables: [
      { title: "Moves under steady reads and writes", rows: summaryRows },
      { title: "Goals", rows: goalRows },
      { title: "When each status was first seen (s after the start)", rows: timelineRows },
      { title: "Reads and writes while moving, by the move's status when they started", rows: phaseRows },
    ],
    notes,
  };
}

async function moveUnderTraffic(ctx, lineCount) {
  const { operator } = await ctx.newTenant({ shard: "SHARD_1" });
  const operations = lineCount / LINES_PER_OPERATION;
  const draftId = (await ctx.expect(operator, "POST", "/v1/operations", operationBody(), 201)).body.id;
  const ids = [];
  await ctx.pool(
    operations,
    2,
    async (i) => {
      const id = (await ctx.expect(operator, "POST", "/v1/operations", operationBody(), 201)).body.id;
      await ctx.expect(operator, "PUT", `/v1/operations/${id}/lines`, linesBody(i), 200);
      ids.push(id);
    },
    { label: `seeding ${thousands(lineCount)} lines (${operations} Operations)` },
  );

  let status = "WARMUP";
  let stopped = false;
  const samples = {
    read: { warmup: [], before: [], during: [], after: [] },
    write: { warmup: [], before: [], during: [], after: [] },
  };
  /** Every successful request while the move runs, by the move's status when it started (where the p99 comes from). */
  const byStatus = {};
  const errors = [];
  const acknowledgedRules = [];
  let lastRename = null;
  let lastLines = null;
  let acknowledgedWhileMoving = 0;
  const fenced = [];
  const acknowledgedAt = [];
  let requests = 0;

  /** One request timed, into the phase it started in; a connection failure is an error too. */
  async function timed(kind, send) {
    const phase = phaseOf(status);
    let answer;
    try {
      answer = await send();
    } catch (error) {
      errors.push(`${kind}: ${error.message}`);
      return null;
    }
    requests++;
    if (answer.status < 300) {
      samples[kind][phase].push(answer.ms);
      if (phase === "during") {
        byStatus[status] ??= [];
        byStatus[status].push(answer.ms);
      }
    }
    return answer;
  }

  const renamed = ids[0];
  const writers = [
    (i) => ({
      send: () =>
        ctx.request(
          operator,
          "POST",
          "/v1/buying-policies/quotas/rules",
          { accountId: `ACC-MOVE-${i}`, minimum: i },
          { "Idempotency-Key": `rule-${lineCount}-${i}` },
        ),
      acknowledge: (answer) => acknowledgedRules.push(answer.body.id),
    }),
    (i) => ({
      send: () =>
        ctx.request(operator, "PATCH", `/v1/operations/${renamed}`, { name: { en: `renamed-${i}` } }, { "Idempotency-Key": `rename-${lineCount}-${i}` }),
      acknowledge: () => (lastRename = `renamed-${i}`),
    }),
    (i) => ({
      send: () => ctx.request(operator, "PUT", `/v1/operations/${draftId}/lines`, tenLines(i), { "Idempotency-Key": `lines-${lineCount}-${i}` }),
      acknowledge: () => (lastLines = i),
    }),
  ];
  const keepWriting = async (make) => {
    for (let i = 0; !stopped; i++) {
      const write = make(i);
      for (;;) {
        const answer = await timed("write", write.send);
        if (answer === null) break;
        if (answer.status < 300) {
          write.acknowledge(answer);
          acknowledgedAt.push(performance.now());
          if (phaseOf(status) === "during") acknowledgedWhileMoving++;
          break;
        }
        if (answer.status === 503 && answer.body?.code === "tenant_moving") {
          fenced.push(performance.now());
          await sleep(100);
          continue;
        }
        errors.push(`write: ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`);
        break;
      }
      await sleep(PAUSE_MS);
    }
  };
  const keepReading = async (path) => {
    for (let i = 0; !stopped; i++) {
      const answer = await timed("read", () => ctx.request(operator, "GET", path(i)));
      if (answer && answer.status !== 200) errors.push(`read: ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`);
      await sleep(PAUSE_MS);
    }
  };
  const traffic = Promise.all([
    ...writers.map(keepWriting),
    keepReading((i) => `/v1/operations/${ids[i % ids.length]}/lines?limit=100`),
    keepReading((i) => `/v1/operations/${ids[i % ids.length]}`),
  ]);

  const label = `${thousands(lineCount)} lines`;
  let move;
  /** The move as last read before it switched: its catch-up's figures then. */
  let beforeSwitch = null;
  const timeline = [];
  try {
    await sleep(WARMUP_MS);
    status = null;
    await sleep(BEFORE_MS);
    const started = performance.now();
    move = (await ctx.expect(operator, "POST", "/v1/tenant/moves", { to: "SHARD_2", keepSourceMinutes: 0 }, 202)).body;
    status = move.status;
    timeline.push({ status: move.status, atMs: 0 });
    while (!["SWITCHED", "DROPPING", "COMPLETED", "ABORTED", "FAILED"].includes(move.status)) {
      if (performance.now() - started > MOVE_TIMEOUT_MS)
        throw new Error(`the move of ${label} did not switch within ${MOVE_TIMEOUT_MS / 60_000} min: ${JSON.stringify(move)}`);
      await sleep(POLL_MS);
      move = (await ctx.expect(operator, "GET", `/v1/tenant/moves/${move.id}`, undefined, 200)).body;
      status = move.status;
      if (RUNNING.has(move.status)) beforeSwitch = move;
      if (timeline.some((seen) => seen.status === move.status)) continue;
      timeline.push({ status: move.status, atMs: performance.now() - started });
      const { rowsCopied, rowsEstimated, rowsVerified, changesApplied, changesChecked } = move.progress;
      ctx.log(
        `${label}: ${move.status} after ${r((performance.now() - started) / 1000)} s, ${thousands(rowsCopied)}/${thousands(rowsEstimated)} rows copied, ${thousands(rowsVerified)} checked, ${thousands(changesApplied)} writes caught up, ${thousands(changesChecked)} rechecked${move.catchUp ? `, catch-up ${JSON.stringify(move.catchUp)}` : ""}`,
      );
    }
    if (!["SWITCHED", "DROPPING", "COMPLETED"].includes(move.status)) throw new Error(`the move of ${label} ended ${move.status}: ${move.error}`);
    await sleep(AFTER_SWITCH_MS);
  } finally {
    stopped = true;
    await traffic;
  }

  // Every acknowledged write, read back from wherever the tenant now is.
  const stored = new Set();
  let nextToken = null;
  do {
    const page = await ctx.expect(
      operator,
      "GET",
      `/v1/buying-policies/quotas/rules?limit=500${nextToken ? `&nextToken=${encodeURIComponent(nextToken)}` : ""}`,
      undefined,
      200,
    );
    for (const rule of page.body.items) stored.add(rule.id);
    nextToken = page.body.nextToken;
  } while (nextToken);
  const lost = acknowledgedRules.filter((id) => !stored.has(id)).map((id) => `rule ${id}`);
  const name = (await ctx.expect(operator, "GET", `/v1/operations/${renamed}`, undefined, 200)).body.name.en;
  if (lastRename !== null && name !== lastRename) lost.push(`rename: ${lastRename} acknowledged last, ${name} stored`);
  const steady = (await ctx.expect(operator, "GET", `/v1/operations/${draftId}/lines?limit=100`, undefined, 200)).body.items;
  const stale = steady.filter((line) => line.maxQuantity !== 100 + lastLines);
  if (lastLines !== null && (steady.length !== TEN_LINES || stale.length))
    lost.push(`lines: PUT ${lastLines} acknowledged last, ${stale.length} of ${steady.length} lines differ`);

  // The longest refusal writers saw: from a 503 (the first of its run) to the next write acknowledged after it.
  let refusedMs = 0;
  for (let i = 0; i < fenced.length; ) {
    const first = fenced[i];
    const resumed = acknowledgedAt.filter((at) => at > first).reduce((min, at) => Math.min(min, at), Infinity);
    refusedMs = Math.max(refusedMs, resumed - first);
    while (i < fenced.length && fenced[i] < resumed) i++;
  }
  // The copy ends when the poll first sees the move past it (catching up, or already checking).
  const copyEnd = timeline.find((seen) => !["PREPARING", "COPYING"].includes(seen.status))?.atMs ?? null;
  const totalMs = Date.parse(move.switchedAt) - Date.parse(move.startedAt);
  return {
    lines: lineCount,
    rows: move.progress.rowsCopied,
    totalMs,
    writesPerSec: Math.round((acknowledgedWhileMoving / (totalMs / 1000)) * 10) / 10,
    catchUp: beforeSwitch?.catchUp ?? null,
    copyMs: copyEnd,
    fenceMs: move.fence.longestMs,
    fenceAttempts: move.fence.attempts,
    refusedMs: Number.isFinite(refusedMs) ? Math.round(refusedMs) : null,
    read: { before: ctx.summarize(samples.read.before), during: ctx.summarize(samples.read.during) },
    write: { before: ctx.summarize(samples.write.before), during: ctx.summarize(samples.write.during) },
    requests,
    errors,
    lost,
    timeline,
    byStatus: Object.fromEntries(Object.entries(byStatus).map(([name, ms]) => [name, ctx.summarize(ms)])),
  };
}
