// Issue 25: pack sizes, scheduled activation and soft minimums must not make the big calls dearer.
// PUT 5000 lines (new and replacing) and compare 5000 are measured side by side with the commit
// before the feature (the parent of "Pack sizes: quantityIncrement on lines…"), served by a second
// local server from that commit's tree (its own migrations, this checkout's wrangler and
// node_modules, so only the code differs). Calls alternate between the two servers round after round.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { extractTree } from "../lib.mjs";

/** The commit before the feature; BENCH_BASELINE=<ref> compares with another. */
const BASELINE_REF = process.env.BENCH_BASELINE ?? "beee574^";
const LINES = 5000;
/** Samples per side are split into this many blocks, in time order: their ratios show the run's noise. */
const BLOCKS = 3;
const WRITE_ROUNDS = 30;
const COMPARE_ROUNDS = 60;
const WARMUP = 3;
/** The goal: no dearer than before, give or take 5 %. */
const GOAL_RATIO = 1.05;

const OPEN = { startDate: "2020-01-01T00:00:00Z", endDate: "2099-12-31T23:59:59Z" };
const sku = (i) => `SKU-${String(i).padStart(5, "0")}`;

/** 5000 lines in the body both commits take (no quantityIncrement: the new field defaults to 1); `round` changes every line. */
function linesBody(round = 0) {
  return JSON.stringify(
    Array.from({ length: LINES }, (_, i) => ({
      variantExternalId: sku(i),
      variantName: { en: `Shirt ${i}`, fr: `Chemise ${i}` },
      minQuantity: i % 4 === 0 ? 1 : 0,
      maxQuantity: 24 + (round % 50),
      recommendedQuantity: i % 3 ? 6 : null,
    })),
  );
}

/** A 5000-line order: mostly in bounds, some above max, a few keys the Operation lacks. */
const compareBody = JSON.stringify({
  lines: Array.from({ length: LINES }, (_, i) => ({ variantExternalId: i % 250 === 8 ? `GONE-${i}` : sku(i), quantity: i % 100 === 3 ? 30 : 1 + (i % 12) })),
});

function percentile(samples, fraction) {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))];
}

/** What one server needs for the measured calls: a tenant, an Operation to re-PUT, an ACTIVE one with 5000 lines and an order placed on it. */
async function seed(side) {
  const { operator } = await side.newTenant();
  let number = 0;
  const createOperation = async () =>
    (await side.expect(operator, "POST", "/v1/operations", { code: `RULES-${++number}`, name: { en: `Bench ${number}` }, type: "PUBLIC", ...OPEN }, 201)).body
      .id;
  const putLines = (id, body) => side.expect(operator, "PUT", `/v1/operations/${id}/lines`, body, 200);
  const replaced = await createOperation();
  await putLines(replaced, linesBody());
  const compared = await createOperation();
  await putLines(compared, linesBody());
  await side.expect(operator, "POST", `/v1/operations/${compared}/status`, { status: "ACTIVE" }, 200);
  const fitting = Array.from({ length: LINES }, (_, i) => ({ variantExternalId: sku(i), quantity: 1 + (i % 12), unitPrice: 500, supplierId: `S${i % 4}` }));
  const order = (await side.expect(operator, "POST", "/v1/orders", { operationId: compared, accountId: "A-BENCH", lines: fitting }, 201)).body;
  const sample = (await side.expect(operator, "POST", `/v1/operations/${compared}/compare`, compareBody, 200)).body;
  return { operator, createOperation, putLines, replaced, compared, orderId: order.id, sample };
}

export default async function campaignRules(ctx) {
  const { commit, dir } = extractTree(BASELINE_REF);
  ctx.log(`baseline: ${BASELINE_REF} = ${commit.slice(0, 12)}, served from ${dir}`);
  const baselineServer = await ctx.startServer({ root: dir, stateDir: join(dir, ".bench-state") });
  try {
    const sides = { current: ctx, baseline: ctx.createContext(baselineServer.baseUrl) };
    const seeded = { current: await seed(sides.current), baseline: await seed(sides.baseline) };
    // The same answer, but for the fields the feature added (incrementMismatch).
    const before = seeded.baseline.sample.summary;
    const sameAnswer = Object.keys(before).every((key) => seeded.current.sample.summary[key] === before[key]);
    if (!sameAnswer)
      throw new Error(`compare answers differ: ${JSON.stringify(seeded.current.sample.summary)} vs ${JSON.stringify(seeded.baseline.sample.summary)}`);

    const cases = [
      {
        name: "PUT 5000 new lines",
        rounds: WRITE_ROUNDS,
        call: async (_side, s) => (await s.putLines(await s.createOperation(), linesBody())).ms,
      },
      {
        name: "PUT 5000 lines replacing 5000",
        rounds: WRITE_ROUNDS,
        call: async (_side, s, round) => (await s.putLines(s.replaced, linesBody(round + 100))).ms,
      },
      {
        name: "compare 5000 lines (body)",
        rounds: COMPARE_ROUNDS,
        call: async (side, s) => (await side.expect(s.operator, "POST", `/v1/operations/${s.compared}/compare`, compareBody, 200)).ms,
      },
      {
        // What any authenticated request costs on each server: a bias between the two processes shows here.
        name: "constant route (each server's floor)",
        floor: true,
        rounds: COMPARE_ROUNDS,
        call: async (side, s) => (await side.expect(s.operator, "GET", "/v1/__bench/constant", undefined, 200)).ms,
      },
      {
        name: "compare a 5000-line order (orderId)",
        rounds: COMPARE_ROUNDS,
        call: async (side, s) => (await side.expect(s.operator, "POST", `/v1/operations/${s.compared}/compare`, { orderId: s.orderId }, 200)).ms,
      },
    ];

    const rows = [];
    for (const measured of cases) {
      const samples = { current: [], baseline: [] };
      const timed = (name) => async (round) => {
        const ms = await measured.call(sides[name], seeded[name], round);
        if (round >= 0) samples[name].push(ms);
        return ms;
      };
      await ctx.sideBySide(
        { current: timed("current"), baseline: timed("baseline") },
        { rounds: measured.rounds, warmup: WARMUP, label: `${measured.name}: this tree vs ${commit.slice(0, 7)}` },
      );
      const p50 = (list) => percentile(list, 0.5);
      const ratio = p50(samples.current) / p50(samples.baseline);
      const size = Math.ceil(measured.rounds / BLOCKS);
      const blockRatios = Array.from(
        { length: BLOCKS },
        (_, b) => p50(samples.current.slice(b * size, (b + 1) * size)) / p50(samples.baseline.slice(b * size, (b + 1) * size)),
      );
      // Within noise: the blocks of this same run disagree on which side is faster.
      const withinNoise = Math.min(...blockRatios) <= 1;
      rows.push({
        name: measured.name,
        p50: ctx.round(p50(samples.current)),
        p25: ctx.round(percentile(samples.current, 0.25)),
        p75: ctx.round(percentile(samples.current, 0.75)),
        baselineP50: ctx.round(p50(samples.baseline)),
        baselineP25: ctx.round(percentile(samples.baseline, 0.25)),
        baselineP75: ctx.round(percentile(samples.baseline, 0.75)),
        ratioP50: Math.round(ratio * 1000) / 1000,
        blockRatios: blockRatios.map((r) => r.toFixed(2)).join(" / "),
        ...(!measured.floor && {
          goal: `≤ ${GOAL_RATIO}× before`,
          met: ratio <= GOAL_RATIO || withinNoise ? "yes" : "no",
          verdict: ratio <= GOAL_RATIO ? `≤ ${GOAL_RATIO}×` : withinNoise ? "within noise" : "dearer",
        }),
      });
    }
    return {
      title: `Campaign rules: this tree vs the commit before them (${commit.slice(0, 12)}), side by side, ${LINES} lines`,
      rows,
      notes: [
        `each row: ${WRITE_ROUNDS} (writes) or ${COMPARE_ROUNDS} (compares) rounds after ${WARMUP} untimed, alternating which server goes first; p25/p50/p75 in ms over loopback, baseline* the same call on the baseline server`,
        `ratioP50 = p50 / baselineP50; blockRatios = the same ratio over each third of the rounds, in time order (the run's own noise); "within noise" = some block has this tree no slower`,
        `both trees answer compare alike: ${JSON.stringify(seeded.current.sample.summary)}`,
      ],
    };
  } finally {
    await baselineServer.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
