import { and, eq, sql } from "drizzle-orm";
import { inJsonChunks, jsonChunks, type Statement } from "../platform/db";
import { ApiError } from "../platform/errors";
import { searchText, sortText } from "../platform/locale";
import { operationLines } from "../platform/schema";
import { nowIso } from "../platform/time";
import { commitRowChange, loadOperation, requireDraft, type CommandContext } from "../operations/commands";
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

/** What a line command recounts: the Operation's lineCount, over operation_lines. */
const LINE_ROWS = { count: "lineCount", operationColumn: operationLines.operationId } as const;

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
  const lineCount = await commitRowChange(ctx, row, {
    writes: upsertStatements(ctx, row, lines, nowIso()),
    ...LINE_ROWS,
    event: "lines.upserted",
    data: { created, updated, lineCount: row.lineCount + created },
  });
  return { created, updated, lineCount };
}

/** DELETE lines: keys that are not lines are reported, not refused. Removing nothing writes nothing. */
export async function removeLines(ctx: CommandContext, input: { variantExternalIds: string[] }): Promise<RemoveLinesResult> {
  const row = await loadOperation(ctx);
  requireDraft(row, "Changing lines");
  const keys = [...new Set(input.variantExternalIds)];
  const found = await findLineKeys(ctx.db, row.id, keys);
  const notFound = keys.filter((key) => !found.has(key));
  if (!found.size) return { removed: 0, notFound, lineCount: row.lineCount };
  const lineCount = await commitRowChange(ctx, row, {
    writes: inJsonChunks(operationLines.variantExternalId, [...found]).map((keyIsIn) =>
      ctx.db.delete(operationLines).where(and(eq(operationLines.operationId, row.id), keyIsIn)),
    ),
    ...LINE_ROWS,
    event: "lines.removed",
    data: { removed: found.size, notFound: notFound.length, lineCount: row.lineCount - found.size },
  });
  return { removed: found.size, notFound, lineCount };
}

/** Commands this resource runs inside the Operation's coordinator (see operations/durable-object.ts). */
export const operationCommands = { upsertLines, removeLines };
