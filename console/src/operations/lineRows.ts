import { mergeLines, type StoredLine } from "@campaign-policy/common/line-bounds";
import { resolveLocale } from "@campaign-policy/common/locale";
import type { Line } from "../api/operations";
import { belowOrderedText, figureText, poolText, type BelowOrdered } from "../labels/allocation";
import { fieldLabel, inFieldLabels } from "../labels/fields";
import { currentLanguage, listText, t } from "../shared/i18n";
import { rowsByIndex, type ErrorItem } from "../shared/grid/models/chunkedSave";
import type { GridColumn } from "../shared/grid/models/columns";
import type { Cells, GridRow } from "../shared/grid/models/draft";
import type { Refusal } from "../shared/session";

/**
 * The lines grid's rows, a pure model: its columns, a line as cells and back, what a row sends to
 * PUT …/lines and to PUT …/allocations (a line's own fields, or its pool and cap per account), its
 * errors as the server would find them, and the rows a refused save names, in the grid's words.
 * Variant names are shown and edited in one language (linesIn): a name is a map by language, and a
 * cell holds one of its texts.
 */

/** A line as the grid holds it: what a PUT may change, its pool and cap per account, and what its orders hold (absent on a line the grid has not read). */
export type GridLine = StoredLine & { orderedQuantity?: number; poolQuantity?: number | null; maxPerAccount?: number | null; poolRemaining?: number | null };
export type LineRow = GridRow<GridLine>;

/** The Pool cell as it reads: "2,000 · 1,640 left" (the server's poolRemaining while the pool is the stored one). */
function poolShown(row: GridRow<unknown>) {
  const line = row.stored as GridLine | undefined;
  const typed = row.cells.poolQuantity;
  const stored = line !== undefined && typed === figureCells(line).poolQuantity;
  return poolText(typed, line?.orderedQuantity, stored ? line.poolRemaining : undefined);
}
const figureShown = (key: string) => (row: GridRow<unknown>) => figureText(row.cells[key]);

const LINE_FIELDS = ["variantExternalId", "variantName", "minQuantity", "maxQuantity", "recommendedQuantity", "quantityIncrement"] as const;
const ALLOCATION_FIELDS = ["poolQuantity", "maxPerAccount"] as const;
export const FIELDS = [...LINE_FIELDS, ...ALLOCATION_FIELDS, "orderedQuantity"] as const;
type Field = (typeof FIELDS)[number];

/** The line's own columns, named in the console's language. */
const lineColumns = () =>
  [
    { key: "variantExternalId", label: fieldLabel("variantExternalId"), grow: 1.3 },
    { key: "variantName", label: fieldLabel("variantName"), grow: 2 },
    { key: "minQuantity", label: fieldLabel("minQuantity"), numeric: true, grow: 0.8 },
    { key: "maxQuantity", label: fieldLabel("maxQuantity"), numeric: true, grow: 0.8 },
    { key: "recommendedQuantity", label: fieldLabel("recommendedQuantity"), short: t("field.recommendedQuantity.short"), numeric: true, grow: 0.8 },
    { key: "quantityIncrement", label: fieldLabel("quantityIncrement"), numeric: true, grow: 0.8 },
  ] as const satisfies readonly GridColumn[];
/** Set through PUT …/allocations in any status, on a stored line (a new line's waits until it is saved). */
const allocationColumns = () =>
  [
    { key: "poolQuantity", label: fieldLabel("poolQuantity"), numeric: true, grow: 1.2, storedOnly: true, display: poolShown },
    {
      key: "maxPerAccount",
      label: fieldLabel("maxPerAccount"),
      short: t("field.maxPerAccount.short"),
      numeric: true,
      grow: 0.8,
      storedOnly: true,
      display: figureShown("maxPerAccount"),
    },
  ] as const satisfies readonly GridColumn[];
// What the Operation's PLACED orders hold of the line, kept by the server: shown, never edited, beside the pool it draws from.
const orderedColumn = () =>
  ({
    key: "orderedQuantity",
    label: fieldLabel("orderedQuantity"),
    numeric: true,
    grow: 0.8,
    readOnly: true,
    display: figureShown("orderedQuantity"),
  }) as const satisfies GridColumn;
/** Every column of the grid. */
export const columns = (): readonly GridColumn[] => [...lineColumns(), ...allocationColumns(), orderedColumn()];
/** The columns while only the allocation edits (the Operation left DRAFT): the line's own are read-only. */
export const allocationOnlyColumns = (): readonly GridColumn[] =>
  columns().map((column) => ((LINE_FIELDS as readonly string[]).includes(column.key) ? { ...column, readOnly: true } : column));
const QUANTITIES = ["minQuantity", "maxQuantity", "recommendedQuantity", "quantityIncrement"] as const satisfies readonly Field[];
/** Each column the API sorts by, ascending and descending, labelled as its column with an arrow. */
export const sortChoices = () =>
  [...lineColumns(), orderedColumn()].flatMap(
    ({ key, label }) =>
      [
        [key, `${label} ↑`],
        [`-${key}`, `${label} ↓`],
      ] as const,
  );

/** Which language the grid's variant names are in, said in the console's: "Variant names in German". */
export const namesInText = (nameLanguage: string) =>
  t("lines.namesIn", { language: new Intl.DisplayNames([currentLanguage()], { type: "language" }).of(nameLanguage) ?? nameLanguage });

type LineCells = Record<Field, string>;

/** A line's cells but its name: the same in every language. */
const figureCells = (line: GridLine): Omit<LineCells, "variantName"> => ({
  variantExternalId: line.variantExternalId,
  minQuantity: String(line.minQuantity),
  maxQuantity: String(line.maxQuantity),
  recommendedQuantity: line.recommendedQuantity === null ? "" : String(line.recommendedQuantity),
  quantityIncrement: String(line.quantityIncrement),
  poolQuantity: line.poolQuantity === null || line.poolQuantity === undefined ? "" : String(line.poolQuantity),
  maxPerAccount: line.maxPerAccount === null || line.maxPerAccount === undefined ? "" : String(line.maxPerAccount),
  orderedQuantity: line.orderedQuantity === undefined ? "" : String(line.orderedQuantity),
});
export const idOf = (line: GridLine) => line.variantExternalId;
export const storedLineOf = (line: Line): GridLine => ({
  variantExternalId: line.variantExternalId,
  variantId: line.variantId,
  variantName: line.variantName,
  minQuantity: line.minQuantity,
  maxQuantity: line.maxQuantity,
  recommendedQuantity: line.recommendedQuantity,
  quantityIncrement: line.quantityIncrement,
  orderedQuantity: line.orderedQuantity,
  poolQuantity: line.poolQuantity,
  maxPerAccount: line.maxPerAccount,
  poolRemaining: line.poolRemaining,
});
const WHOLE = /^\d+$/;
export const variantOf = (row: LineRow) => row.cells.variantExternalId.trim();
/** Whether the row's `field` (not its name) differs from the stored line (every field of a new row does). */
const figureChanged = (row: LineRow, field: Exclude<Field, "variantName">) => !row.stored || figureCells(row.stored)[field] !== row.cells[field];
/** A row PUT …/allocations takes: a stored line whose pool or cap per account changed. */
export const changesAllocation = (row: LineRow) => row.stored !== undefined && ALLOCATION_FIELDS.some((field) => figureChanged(row, field));
const quantityOrNull = (text: string) => (text.trim() === "" ? null : Number(text));

/** What a row sends to PUT …/allocations: its changed pool and cap per account (empty: none). */
export const allocationOf = (row: LineRow) => ({
  variantExternalId: variantOf(row),
  ...(figureChanged(row, "poolQuantity") && { poolQuantity: quantityOrNull(row.cells.poolQuantity) }),
  ...(figureChanged(row, "maxPerAccount") && { maxPerAccount: quantityOrNull(row.cells.maxPerAccount) }),
});

/** What a row sends to PUT …/lines, and whether it sends anything: read with the grid's language of names. */
interface LineWrites {
  changesLine: (row: LineRow) => boolean;
  inputOf: (row: LineRow) => ReturnType<typeof lineInput>;
}

/** What a row sends to PUT: every field of a new line, the changed fields of a stored one (its name as `name` says). */
function lineInput(row: LineRow, name: { changed: boolean; map: Record<string, string> }) {
  const cells = row.cells as LineCells;
  const quantity = (field: (typeof QUANTITIES)[number]) => figureChanged(row, field) && cells[field].trim() !== "" && { [field]: Number(cells[field]) };
  return {
    variantExternalId: variantOf(row),
    ...(name.changed && cells.variantName.trim() && { variantName: name.map }),
    ...quantity("minQuantity"),
    ...quantity("maxQuantity"),
    ...(figureChanged(row, "recommendedQuantity") && { recommendedQuantity: quantityOrNull(cells.recommendedQuantity) }),
    ...quantity("quantityIncrement"),
  };
}

/**
 * The lines grid's rows with variant names in `nameLanguage`: a cell shows the name in that language
 * (else as the API falls back: English, then the first), and an edited name is saved as that
 * language's text, the name's others kept. A grid keeps the language it opened with while it is open.
 */
export function linesIn(nameLanguage: string) {
  const nameOf = (line: GridLine) => resolveLocale(line.variantName, nameLanguage, "en").value ?? "";
  const nameChanged = (row: LineRow) => !row.stored || nameOf(row.stored) !== row.cells.variantName;
  const cellsOf = (line: GridLine): Cells => ({ ...figureCells(line), variantName: nameOf(line) }) satisfies LineCells;
  /** A row PUT …/lines takes: a new line, or a stored one whose own cells changed. */
  const changesLine = (row: LineRow) => nameChanged(row) || LINE_FIELDS.some((field) => field !== "variantName" && figureChanged(row, field));
  const inputOf = (row: LineRow) =>
    lineInput(row, { changed: nameChanged(row), map: { ...row.stored?.variantName, [nameLanguage]: row.cells.variantName.trim() } });
  const writes: LineWrites = { changesLine, inputOf };
  return {
    nameLanguage,
    cellsOf,
    changesLine,
    inputOf,
    errorsOf: (row: LineRow) => errorsOf(row, writes),
    refusedRows: (refusal: Refusal, chunk: LineRow[]) => refusedRows(refusal, chunk, writes),
  };
}

/** The row's pool and cap per account as the server would refuse them: not whole numbers, or a pool below what is ordered. */
function allocationErrorsOf(row: LineRow, errors: Map<string, string>) {
  const { poolQuantity, maxPerAccount } = row.cells as LineCells;
  const ordered = row.stored?.orderedQuantity ?? 0;
  if (poolQuantity.trim() !== "" && !WHOLE.test(poolQuantity.trim())) errors.set("poolQuantity", t("lines.wholeOrNoPool"));
  else if (figureChanged(row, "poolQuantity") && poolQuantity.trim() !== "" && Number(poolQuantity) < ordered)
    errors.set("poolQuantity", belowOrderedText({ field: "poolQuantity", value: Number(poolQuantity), ordered }));
  if (maxPerAccount.trim() !== "" && !/^0*[1-9]\d*$/.test(maxPerAccount.trim())) errors.set("maxPerAccount", t("lines.wholeOrNoCap"));
}

/** A bounds error of the server's own rules (src/common/line-bounds.ts), said by its code in the console's words (Min, Max). */
function boundsMessage(error: { code: string; field?: unknown; message: unknown; missing?: unknown }, line: Partial<StoredLine>): string {
  const value = (field: unknown) => String(line[field as keyof StoredLine] ?? "?");
  if (error.code === "min_gt_max") return t("lines.minGtMax", { min: value("minQuantity"), max: value("maxQuantity") });
  if (error.code === "recommended_out_of_bounds")
    return t("lines.recommendedOutside", { recommended: value("recommendedQuantity"), min: value("minQuantity"), max: value("maxQuantity") });
  if (error.code === "missing_bounds" && Array.isArray(error.missing))
    return t("lines.missingBounds", { fields: listText(error.missing.map(String).map(fieldLabel)) });
  if (error.code === "increment_mismatch")
    return t("lines.notMultiple", { field: fieldLabel(String(error.field)), value: value(error.field), increment: value("quantityIncrement") });
  return inFieldLabels(String(error.message));
}

/** The row's errors by column, by the server's own rules (src/common/line-bounds.ts) plus whole-number cells, in the grid's words (Min, Max). */
function errorsOf(row: LineRow, { changesLine, inputOf }: LineWrites): Map<string, string> {
  const errors = new Map<string, string>();
  allocationErrorsOf(row, errors);
  const cells = row.cells as LineCells;
  if (!variantOf(row)) errors.set("variantExternalId", t("lines.needsVariant"));
  for (const field of QUANTITIES) if (cells[field].trim() !== "" && !WHOLE.test(cells[field].trim())) errors.set(field, t("lines.wholeNumber"));
  if (/^0+$/.test(cells.quantityIncrement.trim())) errors.set("quantityIncrement", t("lines.packAtLeastOne"));
  if (errors.size || !changesLine(row)) return errors;
  const input = inputOf(row);
  const { errors: found } = mergeLines([input], new Map(row.stored ? [[input.variantExternalId, row.stored]] : []));
  for (const error of found) {
    const message = boundsMessage(error, row.stored ? { ...row.stored, ...input } : input);
    if (error.code === "min_gt_max") {
      errors.set("minQuantity", message);
      errors.set("maxQuantity", message);
    } else if (error.code === "recommended_out_of_bounds") errors.set("recommendedQuantity", message);
    else errors.set(FIELDS.includes(String(error.field) as Field) ? String(error.field) : "minQuantity", message);
  }
  return errors;
}

const ALLOCATION_ITEM = /\.(poolQuantity|maxPerAccount)$/;

/**
 * The rows a refused save names, each with why, in the grid's words: a pool or cap below what is
 * ordered (PUT …/allocations names lines by variant), or the items of errors[] (by their index among
 * the rows the PUT that refused was sent).
 */
function refusedRows(refusal: Refusal, chunk: LineRow[], { changesLine }: LineWrites): [LineRow, string][] {
  const problem = refusal.problem as { lines?: (BelowOrdered & { variantExternalId: string })[]; unknownVariantExternalIds?: string[] };
  if (problem.lines || problem.unknownVariantExternalIds) {
    const said = new Map<LineRow, string[]>();
    const say = (variant: string, text: string) => {
      const row = chunk.find((candidate) => variantOf(candidate) === variant);
      if (row) said.set(row, [...(said.get(row) ?? []), text]);
    };
    for (const line of problem.lines ?? []) say(line.variantExternalId, belowOrderedText(line));
    for (const variant of problem.unknownVariantExternalIds ?? []) say(variant, t("lines.removedSince"));
    return [...said].map(([row, texts]) => [row, texts.join(" ")]);
  }
  // Which PUT refused: …/allocations names its own fields (body.3.poolQuantity).
  const items = (refusal.problem as { errors?: ErrorItem[] }).errors ?? [];
  const sent = chunk.filter(items.some((item) => ALLOCATION_ITEM.test(item.field ?? "")) ? changesAllocation : changesLine);
  return rowsByIndex(refusal, sent, (item) => inFieldLabels(item.message ?? refusal.problem.code));
}
