// npm run bench:charts [-- --results DIR --out DIR]: SVG charts of the bench's results
// (bench/results/*.json) in docs/charts/, drawn with Vega-Lite in Node (no browser, no canvas).
// `npm run bench` calls writeCharts after its suites. A chart whose result is missing, or whose
// result lacks the columns it plots, is skipped, so older results still chart what they hold.
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import * as vega from "vega";
import { compile } from "vega-lite";
import { goalsOf, rowLabel, tablesOf } from "./goals.mjs";

const benchDir = dirname(fileURLToPath(import.meta.url));
export const DEFAULT_RESULTS_DIR = join(benchDir, "results");
export const DEFAULT_CHARTS_DIR = join(benchDir, "..", "docs", "charts");

const WIDTH = 560;
const BAR_WIDTH = 420;
// No canvas in Node: Vega estimates text widths, too wide, and would cut labels; shorten() bounds them instead.
const LABEL_LIMIT = 0;
const MET_COLORS = { domain: ["met", "missed"], range: ["#4c78a8", "#e45756"] };
const CONFIG = {
  background: "white",
  font: "Helvetica, Arial, sans-serif",
  title: { fontSize: 14, anchor: "start", subtitleColor: "#555" },
  axis: { labelFontSize: 11, titleFontSize: 12, labelLimit: LABEL_LIMIT },
  legend: { labelFontSize: 11, titleFontSize: 12, labelLimit: LABEL_LIMIT, orient: "bottom", direction: "vertical" },
};

const isNumber = (value) => typeof value === "number" && Number.isFinite(value);
/** "1,000,000" or 1e6 → 1000000. */
const count = (value) => (isNumber(value) ? value : Number(String(value).replaceAll(",", "")));
const shorten = (text, max = 70) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

function title(text, subtitle) {
  return { text, ...(subtitle && { subtitle }) };
}

/** Latency (or any figure) against a size, one line per series. @param points {{ x: number, series: string, y: number }[]} */
function lineChart({ heading, subtitle, xTitle, yTitle, logX = false, points }) {
  return {
    title: title(heading, subtitle),
    width: WIDTH,
    height: 300,
    data: { values: points },
    mark: { type: "line", point: true },
    encoding: {
      x: { field: "x", type: "quantitative", title: xTitle, scale: logX ? { type: "log" } : { zero: false }, axis: logX ? { format: "~s" } : {} },
      y: { field: "y", type: "quantitative", title: yTitle, scale: { zero: true } },
      color: { field: "series", type: "nominal", title: null, sort: null },
    },
  };
}

/** Horizontal bars, one group per category, one bar per series. @param bars {{ category: string, series: string, value: number }[]} */
function groupedBars({ heading, subtitle, xTitle, bars }) {
  return {
    title: title(heading, subtitle),
    width: BAR_WIDTH,
    data: { values: bars.map((bar) => ({ ...bar, category: shorten(bar.category) })) },
    mark: "bar",
    encoding: {
      y: { field: "category", type: "nominal", title: null, sort: null },
      yOffset: { field: "series", type: "nominal", sort: null },
      x: { field: "value", type: "quantitative", title: xTitle },
      color: { field: "series", type: "nominal", title: null, sort: null },
    },
  };
}

/** Measured ratios as bars, each with its goal as a black tick; bars coloured met/missed. */
function goalBars({ heading, subtitle, goals }) {
  const values = goals.map((goal) => ({
    name: shorten(goal.name),
    measured: goal.measured,
    bound: goal.bound,
    goal: goal.goal,
    bar: `goal ${goal.direction} ${goal.bound}×`,
    verdict: goal.met ? "met" : "missed",
  }));
  const y = { field: "name", type: "nominal", title: null, sort: null };
  return {
    title: title(heading, subtitle),
    width: BAR_WIDTH,
    data: { values },
    layer: [
      {
        mark: "bar",
        encoding: {
          y,
          x: { field: "measured", type: "quantitative", title: "measured ratio (×)", scale: { zero: true } },
          color: { field: "verdict", type: "nominal", title: null, scale: MET_COLORS },
          tooltip: [{ field: "goal" }, { field: "measured" }],
        },
      },
      {
        mark: { type: "tick", color: "black", thickness: 3 },
        encoding: { y, x: { field: "bound", type: "quantitative" } },
      },
      {
        mark: { type: "text", align: "left", dx: 6, fontSize: 10 },
        encoding: { y, x: { field: "bound", type: "quantitative" }, text: { field: "bar" } },
      },
    ],
  };
}

function tableWith(record, column) {
  return tablesOf(record).find((table) => table.rows?.some((row) => column in row));
}

// ---- the charts: each takes the results by suite name and answers [{ name, spec }] -------------

function rulesScaleCharts({ "rules-scale": record }) {
  const table = record && tableWith(record, "tenant rules");
  if (!table) return [];
  const columns = [...new Set(table.rows.flatMap((row) => Object.keys(row)))];
  const curve = (matches) =>
    table.rows.flatMap((row) =>
      columns
        .filter(matches)
        .filter((column) => isNumber(row[column]))
        .map((column) => ({ x: count(row["tenant rules"]), series: column, y: row[column] })),
    );
  const writes = curve((column) => /5000/.test(column));
  const reads = curve((column) => /p50|first evaluate/.test(column));
  const charts = [];
  if (writes.length) {
    charts.push({
      name: "rules-scale-writes",
      description:
        "Writing 5000 rules into tenants of growing size: the API's bulk PUT, the same PUT repeated (read and plan only), and a bare insert of 5000 random ids.",
      spec: lineChart({
        heading: "Bulk rule writes against tenant size",
        subtitle: record.title,
        xTitle: "rules in the tenant (log scale)",
        yTitle: "ms per 5000-rule write",
        logX: true,
        points: writes,
      }),
    });
  }
  if (reads.length) {
    charts.push({
      name: "rules-scale-evaluate",
      description: "Quota evaluation against tenant size: warm p50 for 1 and 100 orders, and the first evaluate of a tenant on a fresh instance.",
      spec: lineChart({
        heading: "Evaluate latency against tenant size",
        subtitle: record.title,
        xTitle: "rules in the tenant (log scale)",
        yTitle: "ms",
        logX: true,
        points: reads,
      }),
    });
  }
  return charts;
}

function linesCharts({ lines: record }) {
  const table = record && tableWith(record, "p50At1Op");
  if (!table) return [];
  const operations = record.title?.match(/(\d[\d,]*) Operations/)?.[1] ?? "many";
  const pages = table.rows.filter((row) => isNumber(row.p50At1Op) && isNumber(row.p50));
  const bars = pages.flatMap((row) => [
    { category: rowLabel(row), series: "p50 with 1 Operation", value: row.p50At1Op },
    { category: rowLabel(row), series: `p50 with ${operations} Operations`, value: row.p50 },
  ]);
  const charts = [
    {
      name: "lines-pages",
      description: `A line page's latency with 1 Operation in the database and with ${operations} Operations of 5000 lines: pages stay as fast as the database grows.`,
      spec: groupedBars({ heading: "Line pages by Operation count", subtitle: record.title, xTitle: "p50 (ms)", bars }),
    },
  ];
  const writes = table.rows.filter((row) => isNumber(row.rawUpsertP50) && isNumber(row.p50));
  if (writes.length) {
    charts.push({
      name: "lines-writes",
      description: "Line writes through the API beside the raw upsert of the same rows, measured side by side.",
      spec: groupedBars({
        heading: "Line writes against the raw upsert",
        subtitle: record.title,
        xTitle: "p50 (ms)",
        bars: writes.flatMap((row) => [
          { category: rowLabel(row), series: "API", value: row.p50 },
          { category: rowLabel(row), series: "raw upsert (floor)", value: row.rawUpsertP50 },
        ]),
      }),
    });
  }
  return charts;
}

function soakCharts({ soak: record }) {
  const table = record && tableWith(record, "p99");
  if (!table) return [];
  const windows = table.rows.filter((row) => /^window/.test(row.row ?? ""));
  const series = ["p50", "p95", "p99", "evaluate p99"];
  const points = windows.flatMap((row) => {
    const end = Number(String(row.row).match(/[–-]\s*(\d+)\s*s/)?.[1]);
    return series.filter((column) => isNumber(row[column]) && Number.isFinite(end)).map((column) => ({ x: end, series: column, y: row[column] }));
  });
  if (!points.length) return [];
  return [
    {
      name: "soak-latency",
      description: "Latency of the mixed soak workload window by window: flat lines mean no drift over the run.",
      spec: lineChart({ heading: "Soak: latency over time", subtitle: record.title, xTitle: "seconds into the run (window end)", yTitle: "ms", points }),
    },
  ];
}

function authAbuseCharts({ "auth-abuse": record }) {
  const table = record && tableWith(record, "flooded p50");
  if (!table) return [];
  const bars = table.rows
    .flatMap((row) => [
      { category: rowLabel(row), series: "alone p50", value: row["alone p50"] },
      { category: rowLabel(row), series: "flooded p50", value: row["flooded p50"] },
    ])
    .filter((bar) => isNumber(bar.value));
  return [
    {
      name: "auth-abuse",
      description: "A valid caller's latency alone and during a flood of bad keys, per kind of flood.",
      spec: groupedBars({
        heading: "A valid caller during a flood of bad keys",
        subtitle: "GET /v1/operations, 16 flood requests in flight",
        xTitle: "p50 (ms)",
        bars,
      }),
    },
  ];
}

/** One chart per suite that records ratio goals: the measured ratio against its goal. */
function goalCharts(results) {
  return Object.values(results).flatMap((record) => {
    const goals = goalsOf(record).filter((goal) => goal.unit === "×" && isNumber(goal.measured) && Number.isFinite(goal.bound));
    if (!goals.length) return [];
    return [
      {
        name: `${record.suite}-goals`,
        description: `${record.suite}: each measured ratio (bar) against its goal (black tick, labelled); red bars missed their goal.`,
        spec: goalBars({ heading: `${record.suite}: ratios against their goals`, subtitle: shorten(record.title ?? "", 100), goals }),
      },
    ];
  });
}

const CHARTS = [rulesScaleCharts, linesCharts, goalCharts, soakCharts, authAbuseCharts];

/** The results in `dir`, by suite name. */
export function readResults(dir) {
  const results = {};
  for (const file of readdirSync(dir)
    .filter((name) => name.endsWith(".json"))
    .sort()) {
    const record = JSON.parse(readFileSync(join(dir, file), "utf8"));
    results[record.suite ?? file.replace(/\.json$/, "")] = record;
  }
  return results;
}

/** A Vega-Lite spec as an SVG document. */
export async function renderSvg(spec) {
  const { spec: vegaSpec } = compile({ $schema: "https://vega.github.io/schema/vega-lite/v6.json", config: CONFIG, ...spec });
  const view = new vega.View(vega.parse(vegaSpec), { renderer: "none" });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/** The chart definitions the results allow: [{ name, description, spec }]. */
export function chartsFor(results) {
  return CHARTS.flatMap((charts) => charts(results));
}

/**
 * Writes one SVG per chart the results allow into `outDir`.
 * @returns {Promise<{ name: string, description: string, file: string }[]>}
 */
export async function writeCharts({ resultsDir = DEFAULT_RESULTS_DIR, outDir = DEFAULT_CHARTS_DIR } = {}) {
  const charts = chartsFor(readResults(resultsDir));
  mkdirSync(outDir, { recursive: true });
  const written = [];
  for (const chart of charts) {
    const file = join(outDir, `${chart.name}.svg`);
    writeFileSync(file, await renderSvg(chart.spec));
    written.push({ name: chart.name, description: chart.description, file });
  }
  return written;
}

async function main() {
  const { values } = parseArgs({ options: { results: { type: "string" }, out: { type: "string" } } });
  const written = await writeCharts({
    resultsDir: values.results ? resolve(values.results) : DEFAULT_RESULTS_DIR,
    outDir: values.out ? resolve(values.out) : DEFAULT_CHARTS_DIR,
  });
  for (const chart of written) console.error(`wrote ${chart.file}`);
  if (!written.length) console.error("no results to chart");
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    console.error(error?.stack ?? error);
    process.exitCode = 1;
  });
}
