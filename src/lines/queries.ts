import { and, eq, gte, lte, sql, type SQL, type SQLWrapper } from "drizzle-orm";
import type { Db } from "../platform/data/database";
import { inJsonList, selectInChunks } from "../platform/data/sql";
import { bindPage, containsText, pageInMemory, type ListContext } from "../platform/data/pagination";
import { searchText, sortText } from "../platform/core/locale";
import type { LineAtVersion } from "../history/line-windows";
import { operationVersion } from "../history/versions";
import { operationLines, storedLineColumns } from "../operations/tables";
import { listOperationRows } from "../operations/queries";
import type { StoredLine } from "../common/line-bounds";
import { lineList, ORDERED_FIELDS, type LineRepresentation, type ListLinesQuery } from "./schemas";

/**
 * An exact-value filter, marked selective: without statistics SQLite would rather scan the
 * Operation's lines by primary key than seek the quantity's index; unlikely() changes only that estimate.
 */
const exactly = (column: SQLWrapper, value: number) => sql`unlikely(${column} = ${value})`;

const lineColumns = {
  ...storedLineColumns,
  orderedQuantity: operationLines.orderedQuantity,
  orderCount: operationLines.orderCount,
  poolQuantity: operationLines.poolQuantity,
  maxPerAccount: operationLines.maxPerAccount,
  updatedAt: operationLines.updatedAt,
};

export function toLineRepresentation(row: LineRepresentation): LineRepresentation {
  return {
    variantExternalId: row.variantExternalId,
    variantId: row.variantId,
    variantName: row.variantName,
    minQuantity: row.minQuantity,
    maxQuantity: row.maxQuantity,
    recommendedQuantity: row.recommendedQuantity,
    quantityIncrement: row.quantityIncrement,
    ...(row.orderedQuantity !== undefined && {
      orderedQuantity: row.orderedQuantity,
      orderCount: row.orderCount,
      poolQuantity: row.poolQuantity,
      maxPerAccount: row.maxPerAccount,
      poolRemaining: row.poolQuantity === null || row.poolQuantity === undefined ? null : Math.max(0, row.poolQuantity - row.orderedQuantity),
    }),
    updatedAt: row.updatedAt,
  };
}

/** The exact and range filters of a line's order figures. */
function orderedFigureFilters(query: ListLinesQuery): (SQL | undefined)[] {
  return ORDERED_FIELDS.flatMap((field) => {
    const column = operationLines[field];
    const exact = query[field];
    const atLeast = query[`${field}[gte]`];
    const atMost = query[`${field}[lte]`];
    return [
      exact === undefined ? undefined : exactly(column, exact),
      atLeast === undefined ? undefined : gte(column, atLeast),
      atMost === undefined ? undefined : lte(column, atMost),
    ];
  });
}

function lineFilters(query: ListLinesQuery, operationId: string): (SQL | undefined)[] {
  const variantIds = query.variantIds ?? query.variantExternalId;
  return [
    eq(operationLines.operationId, operationId),
    variantIds && inJsonList(operationLines.variantExternalId, variantIds),
    containsText(operationLines.variantNameSearch, query.variantName),
    query.minQuantity !== undefined ? exactly(operationLines.minQuantity, query.minQuantity) : undefined,
    query.maxQuantity !== undefined ? exactly(operationLines.maxQuantity, query.maxQuantity) : undefined,
    query.recommendedQuantity !== undefined ? exactly(operationLines.recommendedKey, query.recommendedQuantity) : undefined,
    query.quantityIncrement !== undefined ? exactly(operationLines.quantityIncrement, query.quantityIncrement) : undefined,
    ...orderedFigureFilters(query),
  ];
}

/**
 * One page of an Operation's lines. The visibility check rides inside the page query; only an
 * empty page costs a second query, to tell "no lines match" from "no such Operation" (404).
 */
export async function listLines(ctx: ListContext, operationId: string, query: ListLinesQuery, definition = lineList) {
  return listOperationRows(ctx, operationId, {
    definition,
    query,
    filters: lineFilters(query, operationId),
    run: ({ where, orderBy, limit, cursorColumns }) =>
      ctx.db
        .select({ ...lineColumns, ...cursorColumns })
        .from(operationLines)
        .where(where)
        .orderBy(...orderBy)
        .limit(limit),
  });
}

/** The stored lines among `keys`, by key: one json_each query (per 1.5 MB of keys). */
export async function findStoredLines(db: Db, operationId: string, keys: string[]): Promise<Map<string, StoredLine>> {
  const lines = await selectInChunks(operationLines.variantExternalId, keys, (keyIsIn) =>
    db
      .select(storedLineColumns)
      .from(operationLines)
      .where(and(eq(operationLines.operationId, operationId), keyIsIn)),
  );
  return new Map(lines.map((line) => [line.variantExternalId, line]));
}

/**
 * One page of the Operation's lines as they were at `version` (its history), with the filters, sort
 * and pages of the current list. Their updatedAt is when that version was made.
 */
export async function listLinesAsOf(ctx: ListContext, operationId: string, version: number, query: ListLinesQuery) {
  const { principal } = ctx;
  const then = await operationVersion(ctx, principal.tenantId, operationId, version);
  const asOfPage = {
    definition: lineList,
    secret: ctx.secret,
    scope: { tenant: principal.tenantId, user: principal.userId, operationId },
    query: { ...query, asOf: version } as typeof query,
  };
  const variantIds = query.variantIds ?? query.variantExternalId;
  const represent = (lines: LineAtVersion[]) => lines.map((line): LineRepresentation => ({ ...line, updatedAt: then.row.updatedAt }));
  const { sortKeys, cursor, limit, tokenAfter } = await bindPage(asOfPage);
  const onlyByVariantIds = Object.entries(query).every(
    ([name, value]) => value === undefined || ["limit", "nextToken", "sort", "variantIds", "variantExternalId"].includes(name),
  );
  if (onlyByVariantIds && sortKeys.length === 1 && sortKeys[0].field === "variantExternalId") {
    // The default order, filtered by id at most: the page is read without undoing every line.
    const { lines, more } = await then.linePage({ after: (cursor?.[0] as string | undefined) ?? null, desc: sortKeys[0].desc, limit, variantIds });
    const last = lines.at(-1);
    return { items: represent(lines), nextToken: more && last ? await tokenAfter([last.variantExternalId, last.variantExternalId]) : null };
  }
  const lines = await then.lines();
  const wanted = variantIds && new Set(variantIds);
  const nameContains = query.variantName?.toLowerCase();
  const items = [...lines.values()].filter(
    (line) =>
      (!wanted || wanted.has(line.variantExternalId)) &&
      (nameContains === undefined || searchText(line.variantName).includes(nameContains)) &&
      (query.minQuantity === undefined || line.minQuantity === query.minQuantity) &&
      (query.maxQuantity === undefined || line.maxQuantity === query.maxQuantity) &&
      (query.recommendedQuantity === undefined || (line.recommendedQuantity ?? -1) === query.recommendedQuantity) &&
      (query.quantityIncrement === undefined || line.quantityIncrement === query.quantityIncrement),
  );
  // Each sortable field's value as its column has it (lineList), so a past page sorts as a current one.
  const sortValues: Record<string, (line: LineAtVersion) => string | number> = {
    variantExternalId: (line) => line.variantExternalId,
    variantName: (line) => sortText(line.variantName, principal.tenantDefaultLocale),
    minQuantity: (line) => line.minQuantity,
    maxQuantity: (line) => line.maxQuantity,
    recommendedQuantity: (line) => line.recommendedQuantity ?? -1,
    quantityIncrement: (line) => line.quantityIncrement,
  };
  const page = await pageInMemory({
    ...asOfPage,
    items,
    valueOf: (line, field) => sortValues[field](line),
    idOf: (line) => line.variantExternalId,
  });
  return { items: represent(page.items), nextToken: page.nextToken };
}

/** The lines among `keys` as GET …/lines shows them, and a removed one as { variantExternalId, removed: true }: what live viewers are sent. */
export async function linesAsShown(db: Db, operationId: string, keys: readonly string[]): Promise<Record<string, unknown>[]> {
  const rows = await selectInChunks(operationLines.variantExternalId, [...keys], (keyIsIn) =>
    db
      .select(lineColumns)
      .from(operationLines)
      .where(and(eq(operationLines.operationId, operationId), keyIsIn)),
  );
  const found = new Map(rows.map((row) => [row.variantExternalId, toLineRepresentation(row)]));
  return keys.map((key) => found.get(key) ?? { variantExternalId: key, removed: true });
}
