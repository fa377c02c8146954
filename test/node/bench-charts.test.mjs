// The bench's charts (npm run bench:charts) and run summary, on a tiny results directory written
// here: every chart comes out as a well-formed SVG naming its series, goals read back met or
// missed, and the progress helper writes a line per step.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { goalSummary, outcomeOf } from "../../bench/goals.mjs";
import { createProgress } from "../../bench/lib.mjs";
import { repoRoot } from "../../scripts/lib/wrangler.mjs";

const results = {
  "rules-scale": {
    suite: "rules-scale",
    title: "Quota rules at scale",
    tables: [
      {
        title: "Growth curves (ms)",
        rows: [
          { "tenant rules": "1,000", "bulk PUT 5000 ms": 90, "raw upsert 5000, random ids": 200, "warm 1 order p50": 6.2, p99: 19 },
          { "tenant rules": "100,000", "bulk PUT 5000 ms": 130, "raw upsert 5000, random ids": 240, "warm 1 order p50": 7, p99: 20 },
        ],
      },
      {
        title: "Goals",
        rows: [
          { goal: "warm evaluate p50 at 1M ≤ 1.2× at 1k", measured: "1.13× (1 order) at 1M" },
          { goal: "warm evaluate ≤ 1.3× a bare route", measured: "1.81× the bare route" },
        ],
      },
    ],
  },
  lines: {
    suite: "lines",
    title: "Lines at full scale (300 Operations)",
    rows: [
      { name: "PUT 5000 new lines", p50: 118, rawUpsertP50: 104, ratioP50: 1.14, goal: "≤ 3× raw" },
      { name: "GET lines page 1", p50: 13.5, p50At1Op: 13.1, ratioP50: 1.03, goal: "≤ 1.2× at 1 op" },
    ],
  },
  shards: {
    suite: "shards",
    title: "Tenants over several D1 databases",
    rows: [{ layout: "4 tenants on 2 shards", ratio: 0.99, goal: "≥ 1.6×" }],
  },
  soak: {
    suite: "soak",
    title: "Soak",
    rows: [
      { row: "window 1 (0–30 s)", p50: 74, p95: 113, p99: 150, "evaluate p99": 135 },
      { row: "window 2 (30–60 s)", p50: 71, p95: 109, p99: 151, "evaluate p99": 144 },
      { row: "all classes", p50: 72, p95: 110, p99: 150 },
    ],
  },
  webhooks: {
    suite: "webhooks",
    title: "Webhooks",
    rows: [
      { case: "lag", p50: 559.123 },
      { case: "burst", p50: 12 },
    ],
  },
};

/** The text of every <text> element, entities decoded. */
function texts(svg) {
  const decode = (text) => text.replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&quot;", '"').replaceAll("&#39;", "'").replaceAll("&amp;", "&");
  return [...svg.matchAll(/<text\b[^>]*>([^<]*)<\/text>/g)].map((match) => decode(match[1]));
}

/** Every element closed in order (the SVG parses as XML as far as nesting goes). */
function assertWellFormed(svg, name) {
  assert.match(svg, /^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/, `${name}: an <svg> root`);
  const open = [];
  for (const [, closing, tag, selfClosing] of svg.matchAll(/<(\/?)([a-zA-Z][\w:-]*)\b(?:[^>"']|"[^"]*"|'[^']*')*?(\/?)>/g)) {
    if (closing) assert.equal(open.pop(), tag, `${name}: </${tag}> closes what it opened`);
    else if (!selfClosing) open.push(tag);
  }
  assert.deepEqual(open, [], `${name}: every element closed`);
}

describe("bench charts", () => {
  let dir;
  let resultsDir;
  let outDir;
  let run;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "bench-charts-"));
    resultsDir = join(dir, "results");
    outDir = join(dir, "charts");
    mkdirSync(resultsDir);
    for (const [suite, record] of Object.entries(results)) writeFileSync(join(resultsDir, `${suite}.json`), JSON.stringify(record));
    run = spawnSync(process.execPath, [join(repoRoot, "bench", "charts.mjs"), "--results", resultsDir, "--out", outDir], { encoding: "utf8", timeout: 60_000 });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("npm run bench:charts writes one SVG per chart the results allow, and none for results it has no chart for", () => {
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(readdirSync(outDir).sort(), [
      "lines-goals.svg",
      "lines-pages.svg",
      "lines-writes.svg",
      "rules-scale-evaluate.svg",
      "rules-scale-goals.svg",
      "rules-scale-writes.svg",
      "shards-goals.svg",
      "soak-latency.svg",
    ]);
  });

  it("every chart is a well-formed SVG naming its series", () => {
    const expected = {
      "rules-scale-writes.svg": ["bulk PUT 5000 ms", "raw upsert 5000, random ids", "rules in the tenant (log scale)"],
      "rules-scale-evaluate.svg": ["warm 1 order p50"],
      "lines-pages.svg": ["p50 with 1 Operation", "p50 with 300 Operations", "GET lines page 1"],
      "lines-writes.svg": ["API", "raw upsert (floor)", "PUT 5000 new lines"],
      "soak-latency.svg": ["p50", "p95", "p99", "evaluate p99"],
      "rules-scale-goals.svg": ["met", "missed", "goal ≤ 1.2×", "goal ≤ 1.3×", "warm evaluate ≤ 1.3× a bare route"],
      "shards-goals.svg": ["missed", "goal ≥ 1.6×", "4 tenants on 2 shards"],
      "lines-goals.svg": ["goal ≤ 3×", "goal ≤ 1.2×"],
    };
    for (const [file, names] of Object.entries(expected)) {
      const svg = readFileSync(join(outDir, file), "utf8");
      assertWellFormed(svg, file);
      const labels = texts(svg);
      for (const name of names) assert.ok(labels.includes(name), `${file} names "${name}" (has: ${labels.join(" | ")})`);
    }
    // The growth curve plots only the size-bound figures, not the p99 beside them.
    assert.ok(!texts(readFileSync(join(outDir, "rules-scale-evaluate.svg"), "utf8")).includes("p99"));
  });

  it("the summary reads goals back, met and missed, and a suite without goals by its headline column", () => {
    assert.equal(goalSummary(results.lines), "goals 2/2 met");
    assert.equal(goalSummary(results["rules-scale"]), "goals 1/2 met; missed: warm evaluate ≤ 1.3× a bare route (1.81×)");
    assert.equal(goalSummary(results.shards), "goals 0/1 met; missed: 4 tenants on 2 shards (0.99×)");
    assert.equal(goalSummary(results.webhooks), null);
    assert.equal(outcomeOf(results.webhooks), "p50 12–559.12 ms over 2 rows; no goals recorded");
    assert.equal(outcomeOf(results.lines), "goals 2/2 met");
  });

  it("progress writes a line per step, prefixed by the suite, when not on a terminal", () => {
    const written = [];
    let clock = 0;
    const progress = createProgress({ isTTY: false, write: (text) => written.push(text) }, { now: () => clock });
    progress.setPrefix("lines");
    const step = progress.step("PUT 5000 lines", 40, "samples");
    for (let i = 0; i < 40; i++) {
      clock += 100;
      step.tick();
    }
    step.done("p50 12 ms");
    progress.log("seeding done");
    assert.deepEqual(written, ["[lines] PUT 5000 lines: 40/40 samples in 4.0 s (p50 12 ms)\n", "[lines] seeding done\n"]);
  });

  it("on a terminal, progress redraws one line in place and leaves the step's final line", () => {
    const written = [];
    let clock = 0;
    const progress = createProgress({ isTTY: true, write: (text) => written.push(text) }, { now: () => clock });
    progress.setPrefix("quotas");
    const step = progress.step("evaluate vs constant", 3, "rounds");
    for (let i = 0; i < 3; i++) {
      clock += 250;
      step.tick();
    }
    step.done();
    assert.deepEqual(written, [
      "\r\x1b[K[quotas] evaluate vs constant: 1/3 rounds",
      "\r\x1b[K[quotas] evaluate vs constant: 2/3 rounds",
      "\r\x1b[K[quotas] evaluate vs constant: 3/3 rounds",
      "\r\x1b[K",
      "[quotas] evaluate vs constant: 3/3 rounds in 0.8 s\n",
    ]);
  });
});
