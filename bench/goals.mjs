// The goals a suite's result records, read back from its tables: rows with a `goal` ("≤ 3× raw",
// "≥ 1.6×", "≤ 1000 ms", or a sentence holding one) and the figure it bounds, and rows with a
// `within` verdict (the edge suite's round-trip budgets). Shared by the run's summary and the charts.

/** @typedef {{ suite: string, name: string, goal: string, unit: "×" | "ms" | "", bound: number, direction: "≤" | "≥", measured: number | null, met: boolean | null }} Goal */

const GOAL = /([≤≥]|<=|>=)\s*([\d.]+)\s*(×|x\b|ms\b|MB\b)?/;
const RATIO_COLUMNS = ["ratioP50", "ratio", "p50 ratio"];

/** The tables of a result record (a suite answers one or several). */
export function tablesOf(record) {
  return record.tables ?? [{ title: record.title, rows: record.rows ?? [] }];
}

/** The row's label: its first text column. */
export function rowLabel(row) {
  const first = Object.values(row).find((value) => typeof value === "string" && value !== "");
  return first ?? "";
}

function firstNumber(text, unit) {
  const pattern = unit === "×" ? /(-?[\d.]+)\s*×/ : /(-?[\d.]+)/;
  const match = String(text).match(pattern);
  return match ? Number(match[1]) : null;
}

function measuredFigure(row, unit) {
  if (typeof row.measured === "string") return firstNumber(row.measured, unit);
  if (unit === "×") {
    const column = RATIO_COLUMNS.find((name) => typeof row[name] === "number");
    return column ? row[column] : null;
  }
  if (unit === "ms") return typeof row.max === "number" ? row.max : typeof row.p50 === "number" ? row.p50 : null;
  return null;
}

function verdict(text) {
  if (text === "yes") return true;
  if (text === "no") return false;
  return null;
}

/** @returns {Goal[]} */
export function goalsOf(record) {
  const goals = [];
  for (const table of tablesOf(record)) {
    for (const row of table.rows ?? []) {
      if (typeof row.goal === "string" && row.goal.trim()) {
        const match = row.goal.match(GOAL);
        const unit = match?.[3] === "x" ? "×" : (match?.[3] ?? "");
        const direction = match && (match[1] === "≥" || match[1] === ">=") ? "≥" : "≤";
        const bound = match ? Number(match[2]) : NaN;
        const measured = match ? measuredFigure(row, unit) : null;
        const computed = measured === null || !match ? null : direction === "≤" ? measured <= bound : measured >= bound;
        const name = typeof row.measured === "string" ? row.goal : rowLabel(row);
        goals.push({ suite: record.suite, name, goal: row.goal, unit, bound, direction, measured, met: verdict(row.met) ?? computed });
      } else if (typeof row.within === "string" && row.within) {
        goals.push({
          suite: record.suite,
          name: `${rowLabel(row)}: round trips ${row.budget}`,
          goal: `round trips ${row.budget}`,
          unit: "",
          bound: NaN,
          direction: "≤",
          measured: null,
          met: verdict(row.within),
        });
      }
    }
  }
  return goals;
}

/** One line on a suite's goals: "goals 5/7 met; missed: … (1.81×)", or null when it records none. */
export function goalSummary(record) {
  const goals = goalsOf(record).filter((goal) => goal.met !== null);
  if (!goals.length) return null;
  const missed = goals.filter((goal) => !goal.met);
  const figure = (goal) => (goal.measured === null ? "" : ` (${goal.measured}${goal.unit === "×" ? "×" : goal.unit ? ` ${goal.unit}` : ""})`);
  return `goals ${goals.length - missed.length}/${goals.length} met${missed.length ? `; missed: ${missed.map((goal) => `${goal.name}${figure(goal)}`).join("; ")}` : ""}`;
}

const hundredths = (value) => Math.round(value * 100) / 100;
const HEADLINE_COLUMNS = ["×floor p50", "p50 ratio", "ratioP50", "ratio", "p50"];

/**
 * A suite's outcome in one line: its goals when it records some, else the range of its headline
 * column (the ratio to its floor where it has one, else p50) over the first table's rows.
 */
export function outcomeOf(record) {
  const goals = goalSummary(record);
  if (goals) return goals;
  const rows = tablesOf(record)[0]?.rows ?? [];
  for (const column of HEADLINE_COLUMNS) {
    const values = rows.filter((row) => typeof row[column] === "number" && Number.isFinite(row[column])).map((row) => row[column]);
    if (!values.length) continue;
    const low = hundredths(Math.min(...values));
    const high = hundredths(Math.max(...values));
    const unit = column === "p50" ? " ms" : "×";
    const range = low === high ? `${low}${unit}` : `${low}–${high}${unit}`;
    return `${column} ${range} over ${values.length} row${values.length > 1 ? "s" : ""}; no goals recorded`;
  }
  return record.title ?? "";
}
