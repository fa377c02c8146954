import type { AnySQLiteColumn } from "drizzle-orm/sqlite-core";
import { insertFromJson, type Statement } from "../platform/data/sql";
import { ApiError } from "../platform/core/errors";
import { searchText, sortText } from "../platform/core/locale";
import { operationLines } from "../operations/tables";
import { nowIso } from "../platform/core/time";
import { defineCommand, type CommandContext } from "../operations/coordinator/protocol";
import {
  commitRowChange,
  LINE_FIELD_NAMES,
  loadOperationWith,
  removeOwnedRows,
  requireDraft,
  type OperationRow,
  type OwnedRows,
} from "../operations/aggregate";
import { changeOf, recordedFields, recordsOf } from "../platform/data/changes";
import { mergeLines, type StoredLine } from "../common/line-bounds";
import { findStoredLines } from "./queries";
import type { LineInput } from "./schemas";

export interface UpsertLinesResult {
  created: number;
  updated: number;
  lineCount: number;
}

export interface RemoveLinesResult {
  removed: number;
  notFound: string[];
  lineCount: number;
}

/** A line's fields as history records them (its key is the record's resource id). */
export const LINE_FIELDS = recordedFields<StoredLine>(LINE_FIELD_NAMES);

/** The Operation's lines: counted in lineCount, keyed by variantExternalId. */
export const LINE_ROWS: OwnedRows = { count: "lineCount", operationColumn: operationLines.operationId, keyColumn: operationLines.variantExternalId };

/**
 * One statement per JSON chunk (usually one for 5000 lines): rows travel in a single bound
 * parameter, so the statement stays within D1's 100-parameter limit at any size.
 */
export function upsertStatements(
  ctx: CommandContext,
  row: OperationRow,
  lines: StoredLine[],
  stored: ReadonlyMap<string, StoredLine>,
  updatedAt: string,
): Statement[] {
  const tenantDefault = ctx.principal.tenantDefaultLocale;
  return insertFromJson(
    operationLines,
    lines,
    [
      [operationLines.operationId, row.id],
      [operationLines.variantExternalId, (line) => line.variantExternalId],
      [operationLines.tenantId, row.tenantId],
      [operationLines.variantId, (line) => line.variantId],
      [operationLines.variantName, (line) => line.variantName],
      [operationLines.variantNameSearch, (line) => searchText(line.variantName)],
      [operationLines.variantNameSort, (line) => sortText(line.variantName, tenantDefault)],
      [operationLines.minQuantity, (line) => line.minQuantity],
      [operationLines.maxQuantity, (line) => line.maxQuantity],
      [operationLines.recommendedQuantity, (line) => line.recommendedQuantity],
      [operationLines.quantityIncrement, (line) => line.quantityIncrement],
      [operationLines.updatedAt, updatedAt],
    ],
    {
      target: [operationLines.operationId, operationLines.variantExternalId],
      update: [...changedColumns(lines, stored), operationLines.updatedAt],
    },
  );
}

/**
 * What a PUT may change on a stored line, each with how to read it off a line; the name carries the
 * columns derived from it. Assigning an indexed column rewrites its index entry even to the same
 * value, so a batch assigns only what it changes on some stored line (a re-PUT of new maximums
 * leaves the name, minimum, recommended and pack-size indexes alone).
 */
const UPDATABLE: [AnySQLiteColumn[], (before: StoredLine, after: StoredLine) => boolean][] = [
  [[operationLines.variantId], (before, after) => before.variantId === after.variantId],
  [
    [operationLines.variantName, operationLines.variantNameSearch, operationLines.variantNameSort],
    (before, after) => sameNames(before.variantName, after.variantName),
  ],
  [[operationLines.minQuantity], (before, after) => before.minQuantity === after.minQuantity],
  [[operationLines.maxQuantity], (before, after) => before.maxQuantity === after.maxQuantity],
  [[operationLines.recommendedQuantity], (before, after) => before.recommendedQuantity === after.recommendedQuantity],
  [[operationLines.quantityIncrement], (before, after) => before.quantityIncrement === after.quantityIncrement],
];

/** Two names stored as the same JSON text: the same languages in the same order, each with the same text. */
function sameNames(a: Record<string, string>, b: Record<string, string>): boolean {
  const languages = Object.keys(b);
  let i = 0;
  for (const language in a) {
    if (language !== languages[i] || a[language] !== b[language]) return false;
    i++;
  }
  return i === languages.length;
}

/** The columns some line of the batch gives a stored line another value in. */
function changedColumns(lines: StoredLine[], stored: ReadonlyMap<string, StoredLine>): AnySQLiteColumn[] {
  return UPDATABLE.filter(([, same]) =>
    lines.some((line) => {
      const before = stored.get(line.variantExternalId);
      return before !== undefined && !same(before, line);
    }),
  ).flatMap(([columns]) => columns);
}

/**
 * PUT lines: two reads side by side (the Operation, the stored lines of the batch's keys), the
 * merge and its validation in memory, then one batch that writes everything or nothing.
 */
export const upsertLines = defineCommand(
  "lines.upsert",
  async function upsertLines(ctx: CommandContext, input: { lines: LineInput[]; dryRun: boolean; mergeNames?: boolean }): Promise<UpsertLinesResult> {
    const keys = input.lines.map((line) => line.variantExternalId);
    const [row, stored] = await loadOperationWith(ctx, () => findStoredLines(ctx.db, ctx.operationId, keys));
    requireDraft(row, "Changing lines");
    const mergeNames = input.mergeNames ? { tenantDefault: ctx.principal.tenantDefaultLocale } : undefined;
    const { lines, created, updated, errors } = mergeLines(input.lines, stored, { mergeNames });
    if (errors.length) {
      const badLines = new Set(errors.map((error) => error.index)).size;
      throw new ApiError("line_bounds_invalid", `${badLines} of ${input.lines.length} lines have invalid bounds; nothing was written.`, {
        errors,
      });
    }
    const lineCount = await commitRowChange(ctx, row, {
      rows: LINE_ROWS,
      writes: upsertStatements(ctx, row, lines, stored, nowIso()),
      // Only the lines that change, each with only its fields that change: a re-PUT of 5000 lines that changes 3 records 3.
      records: input.dryRun
        ? []
        : recordsOf(lines.map((line) => changeOf("line", line.variantExternalId, stored.get(line.variantExternalId) ?? null, line, LINE_FIELDS))),
      event: "lines.upserted",
      data: { created, updated, lineCount: row.lineCount + created },
      countAfter: row.lineCount + created,
      dryRun: input.dryRun,
    });
    return { created, updated, lineCount };
  },
  (input, result) => ({
    what: "lines",
    counts: { created: result.created, updated: result.updated },
    lineKeys: input.lines.map((line) => line.variantExternalId),
  }),
);

/** DELETE lines: keys that are not lines are reported, not refused. Removing nothing writes nothing. */
export const removeLines = defineCommand(
  "lines.remove",
  async function removeLines(ctx: CommandContext, input: { variantExternalIds: string[]; dryRun: boolean }): Promise<RemoveLinesResult> {
    const [row, stored] = await loadOperationWith(ctx, () => findStoredLines(ctx.db, ctx.operationId, [...new Set(input.variantExternalIds)]));
    requireDraft(row, "Changing lines");
    const { removed, notFound, count } = await removeOwnedRows(ctx, row, {
      rows: LINE_ROWS,
      keys: input.variantExternalIds,
      found: new Set(stored.keys()),
      recordOf: (key) => changeOf("line", key, stored.get(key)!, null, LINE_FIELDS),
      event: "lines.removed",
      eventNames: { removed: "removed", notFound: "notFound" },
      dryRun: input.dryRun,
    });
    return { removed, notFound, lineCount: count };
  },
  (input, result) => ({ what: "lines", counts: { removed: result.removed }, lineKeys: input.variantExternalIds }),
);

/** The commands of this resource, for the coordinator's registry. */
export const lineCommands = [upsertLines, removeLines];
