import { sql, type SQL } from "drizzle-orm";
import type { Db } from "../platform/data/database";
import { jsonChunks } from "../platform/data/sql";
import { operationLines, orders } from "../operations/tables";

export type LineIssueCode = "not_in_operation" | "below_min" | "above_max" | "missing_required" | "increment_mismatch";

export interface LineIssue {
  /** Position in the order's lines; null for missing_required (the line is not in the order). */
  index: number | null;
  variantExternalId: string;
  code: LineIssueCode;
  quantity: number | null;
  minQuantity: number | null;
  maxQuantity: number | null;
  /** The line's pack size; null for not_in_operation. */
  quantityIncrement: number | null;
}

/**
 * The valid quantities nearest to `quantity` on either side: multiples of the pack size within the
 * bounds; null on a side that has none. A quantity is never rounded for the caller, only these offered.
 */
export function nearestValidQuantities(
  quantity: number,
  bounds: { minQuantity: number; maxQuantity: number; quantityIncrement: number },
): [number | null, number | null] {
  const step = bounds.quantityIncrement;
  const lowestMultiple = Math.ceil(bounds.minQuantity / step) * step;
  const highestMultiple = Math.floor(bounds.maxQuantity / step) * step;
  const below = Math.min(Math.floor(quantity / step) * step, highestMultiple);
  const above = Math.max(Math.ceil(quantity / step) * step, lowestMultiple);
  return [below >= lowestMultiple ? below : null, above <= highestMultiple ? above : null];
}

/** Where an order's lines come from: the request, or an order already stored. */
export type OrderLinesSource = { lines: { variantExternalId: string; quantity: number }[] } | { orderId: string; tenantId: string };

/**
 * The order's lines as rows (idx, v, q). Lines from the request travel as compact [index, key, quantity]
 * triples in one JSON parameter per 1.5 MB; a stored order's lines are read where they lie.
 */
function orderedRows(source: OrderLinesSource): SQL {
  if ("orderId" in source) {
    return sql`select line.key as idx, json_extract(line.value, '$.variantExternalId') as v, json_extract(line.value, '$.quantity') as q
      from ${orders}, json_each(${orders.lines}) as line
      where ${orders.id} = ${source.orderId} and ${orders.tenantId} = ${source.tenantId}`;
  }
  const triples = source.lines.map((line, index) => [index, line.variantExternalId, line.quantity]);
  const parts = jsonChunks(triples).map(
    (chunk) => sql`select json_extract(value, '$[0]') as idx, json_extract(value, '$[1]') as v, json_extract(value, '$[2]') as q from json_each(${chunk})`,
  );
  return sql.join(parts, sql` union all `);
}

/**
 * Every discrepancy between an order's lines and the Operation's, in ONE statement: each order line
 * joined to its Operation line by primary key (not_in_operation, below_min, above_max, then
 * increment_mismatch for a quantity within the bounds that is not a multiple of the pack size), and, with
 * `missingRequired`, the Operation lines with minQuantity > 0 the order leaves out (read from the
 * min_quantity index, matched against the order's keys as one ephemeral set).
 */
export async function findLineIssues(db: Db, operationId: string, source: OrderLinesSource, options: { missingRequired: boolean }): Promise<LineIssue[]> {
  const missing = options.missingRequired
    ? sql`union all
      select null, ${operationLines.variantExternalId}, 'missing_required', null, ${operationLines.minQuantity}, ${operationLines.maxQuantity}, ${operationLines.quantityIncrement}
      from ${operationLines}
      where ${operationLines.operationId} = ${operationId} and ${operationLines.minQuantity} > 0
        and ${operationLines.variantExternalId} not in (select v from ordered)`
    : sql``;
  const l = operationLines;
  const rows = await db.values<[number | null, string, LineIssueCode, number | null, number | null, number | null, number | null]>(sql`
    with ordered(idx, v, q) as (${orderedRows(source)})
    select ordered.idx, ordered.v,
      case when ${l.variantExternalId} is null then 'not_in_operation' when ordered.q < ${l.minQuantity} then 'below_min'
        when ordered.q > ${l.maxQuantity} then 'above_max' else 'increment_mismatch' end,
      ordered.q, ${l.minQuantity}, ${l.maxQuantity}, ${l.quantityIncrement}
    from ordered left join ${l} on ${l.operationId} = ${operationId} and ${l.variantExternalId} = ordered.v
    where ${l.variantExternalId} is null or ordered.q < ${l.minQuantity} or ordered.q > ${l.maxQuantity} or ordered.q % ${l.quantityIncrement} != 0
    ${missing}`);
  const issues = rows.map((row) => {
    const [index, variantExternalId, code, quantity, minQuantity, maxQuantity, quantityIncrement] = row;
    return { index, variantExternalId, code, quantity, minQuantity, maxQuantity, quantityIncrement };
  });
  // Order lines by position, then the missing ones by key.
  return issues.sort((a, b) =>
    a.index !== null && b.index !== null
      ? a.index - b.index
      : a.index !== null
        ? -1
        : b.index !== null
          ? 1
          : a.variantExternalId < b.variantExternalId
            ? -1
            : a.variantExternalId > b.variantExternalId
              ? 1
              : 0,
  );
}
