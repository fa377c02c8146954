import { sql } from "drizzle-orm";
import { jsonChunks, type Statement } from "../platform/db";
import { ApiError } from "../platform/errors";
import { searchText, sortText } from "../platform/locale";
import { operationLines, operations } from "../platform/schema";
import { nowIso } from "../platform/time";
import {
  bumpOperation,
  commit,
  loadOperation,
  operationEvent,
  requireDraft,
  unchangedSince,
  type CommandContext,
} from "../operations/commands";
import type { OperationRow } from "../operations/queries";
import { mergeLines, type StoredLine } from "./bounds";
import { findLineKeys, findStoredLines } from "./queries";
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

/** Recounted inside the batch that changed the lines, so lineCount is exact whatever happened before. */
function recountLines(row: OperationRow) {
  return sql`(select count(*) from ${operationLines} where ${operationLines.operationId} = ${row.id})`;
}

/** Last statement of a line batch: the count as committed, read back in the same transaction. */
function readLineCount(row: OperationRow) {
  return sql`select ${operations.lineCount} as lineCount from ${operations} where ${operations.id} = ${row.id}`;
}

function committedLineCount(results: D1Result[]): number {
  return (results[results.length - 1].results[0] as { lineCount: number }).lineCount;
}

/**
 * One statement per JSON chunk (usually one for 5000 lines): rows travel as compact arrays in a
 * single bound parameter, so the statement stays within D1's 100-parameter limit at any size.
 */
function upsertStatements(ctx: CommandContext, row: OperationRow, lines: StoredLine[], updatedAt: string): Statement[] {
  const tenantDefault = ctx.principal.tenantDefaultLocale;
  const tuples = lines.map((line) => [
    line.variantExternalId,
    line.variantId,
    JSON.stringify(line.variantName),
    searchText(line.variantName),
    sortText(line.variantName, tenantDefault),
    line.minQuantity,
    line.maxQuantity,
    line.recommendedQuantity,
  ]);
  return jsonChunks(tuples).map(
    (chunk) => sql`insert into operation_lines (operation_id, variant_external_id, tenant_id, variant_id, variant_name,
        variant_name_search, variant_name_sort, min_quantity, max_quantity, recommended_quantity, updated_at)
      select ${row.id}, value ->> 0, ${row.tenantId}, value ->> 1, value ->> 2, value ->> 3, value ->> 4,
        value ->> 5, value ->> 6, value ->> 7, ${updatedAt}
      from json_each(${chunk}) where true
      on conflict (operation_id, variant_external_id) do update set
        variant_id = excluded.variant_id, variant_name = excluded.variant_name,
        variant_name_search = excluded.variant_name_search, variant_name_sort = excluded.variant_name_sort,
        min_quantity = excluded.min_quantity, max_quantity = excluded.max_quantity,
        recommended_quantity = excluded.recommended_quantity, updated_at = excluded.updated_at`,
  );
}

/**
 * PUT lines: two reads (the Operation, the stored lines of the batch's keys), the merge and its
 * validation in memory, then one batch that writes everything or nothing.
 */
export async function upsertLines(ctx: CommandContext, input: { lines: LineInput[] }): Promise<UpsertLinesResult> {
  const row = await loadOperation(ctx);
  requireDraft(row, "Changing lines");
  const stored = await findStoredLines(
    ctx.db,
    row.id,
    input.lines.map((line) => line.variantExternalId),
  );
  const { lines, created, updated, errors } = mergeLines(input.lines, stored);
  if (errors.length) {
    const badLines = new Set(errors.map((error) => error.index)).size;
    throw new ApiError("line_bounds_invalid", `${badLines} of ${input.lines.length} lines have invalid bounds; nothing was written.`, {
      errors,
    });
  }
  const results = await commit(ctx, [
    unchangedSince(ctx, row),
    ...upsertStatements(ctx, row, lines, nowIso()),
    bumpOperation(ctx, row, { lineCount: recountLines(row) }),
    operationEvent(ctx, "lines.upserted", { created, updated, lineCount: row.lineCount + created }),
    readLineCount(row),
  ]);
  return { created, updated, lineCount: committedLineCount(results) };
}

/** DELETE lines: keys that are not lines are reported, not refused. Removing nothing writes nothing. */
export async function removeLines(ctx: CommandContext, input: { variantExternalIds: string[] }): Promise<RemoveLinesResult> {
  const row = await loadOperation(ctx);
  requireDraft(row, "Changing lines");
  const keys = [...new Set(input.variantExternalIds)];
  const found = await findLineKeys(ctx.db, row.id, keys);
  const notFound = keys.filter((key) => !found.has(key));
  if (!found.size) return { removed: 0, notFound, lineCount: row.lineCount };
  const results = await commit(ctx, [
    unchangedSince(ctx, row),
    ...jsonChunks([...found]).map(
      (chunk) => sql`delete from ${operationLines} where ${operationLines.operationId} = ${row.id}
        and ${operationLines.variantExternalId} in (select value from json_each(${chunk}))`,
    ),
    bumpOperation(ctx, row, { lineCount: recountLines(row) }),
    operationEvent(ctx, "lines.removed", { removed: found.size, notFound: notFound.length, lineCount: row.lineCount - found.size }),
    readLineCount(row),
  ]);
  return { removed: found.size, notFound, lineCount: committedLineCount(results) };
}

/** Commands this resource runs inside the Operation's coordinator (see operations/durable-object.ts). */
export const operationCommands = { upsertLines, removeLines };
