import { and, eq, sql, type SQL } from "drizzle-orm";
import { accountLineTotals, operationAccountCaps, operationLines } from "../operations/tables";
import type { Db } from "../platform/data/database";
import { inJsonList, jsonChunks, selectInChunks } from "../platform/data/sql";
import type { ListContext } from "../platform/data/pagination";
import { listOperationRows } from "../operations/queries";
import { accountCapList, type AccountCapsQuery } from "./schemas";
import { availableTo, type LineAllocation } from "./remaining";

/*
 * Reading what is left of lines for an account, and the same test as SQL for an order's batch: what
 * its guard re-checks where the counters are updated, so a placement never commits beyond a pool or a cap.
 */

const l = operationLines;
const c = operationAccountCaps;
const a = accountLineTotals;

/** The account's cap on a line: its own, else the line's maxPerAccount (null: none). */
const capOf = sql`coalesce(${c.maxQuantity}, ${l.maxPerAccount})`;

const joinedFor = (accountId: string) => ({
  caps: and(eq(c.operationId, l.operationId), eq(c.variantExternalId, l.variantExternalId), eq(c.accountId, accountId)),
  totals: and(eq(a.operationId, l.operationId), eq(a.variantExternalId, l.variantExternalId), eq(a.accountId, accountId)),
});

/** The Operation's lines among `variantIds` as `accountId` finds them (pool, cap, what was ordered), by variant. */
export async function readLineAllocations(db: Db, operationId: string, accountId: string, variantIds: readonly string[]): Promise<Map<string, LineAllocation>> {
  const joined = joinedFor(accountId);
  const rows = await selectInChunks(l.variantExternalId, [...new Set(variantIds)], (keyIsIn) =>
    db
      .select({
        variantExternalId: l.variantExternalId,
        minQuantity: l.minQuantity,
        maxQuantity: l.maxQuantity,
        quantityIncrement: l.quantityIncrement,
        poolQuantity: l.poolQuantity,
        orderedQuantity: l.orderedQuantity,
        cap: sql<number | null>`${capOf}`,
        accountOrdered: sql<number>`coalesce(${a.orderedQuantity}, 0)`,
      })
      .from(l)
      .leftJoin(c, joined.caps)
      .leftJoin(a, joined.totals)
      .where(and(eq(l.operationId, operationId), keyIsIn)),
  );
  return new Map(rows.map((row) => [row.variantExternalId, row]));
}

/**
 * As SQL, for the batch that places an order (before its counters move): none of its lines asks more
 * than is left of the line's pool or of the account's cap. Lines travel as [variantExternalId, quantity].
 */
export function fitsAllocation(operationId: string, accountId: string, lines: readonly { variantExternalId: string; quantity: number }[]): SQL {
  const joined = joinedFor(accountId);
  const exceeded = jsonChunks(lines.map((line) => [line.variantExternalId, line.quantity])).map(
    (chunk) => sql`exists (select 1 from json_each(${chunk}) as asked
      cross join ${l} on ${l.operationId} = ${operationId} and ${l.variantExternalId} = asked.value ->> 0
      left join ${c} on ${joined.caps}
      left join ${a} on ${joined.totals}
      where (${l.poolQuantity} is not null and ${l.orderedQuantity} + (asked.value ->> 1) > ${l.poolQuantity})
         or (${capOf} is not null and coalesce(${a.orderedQuantity}, 0) + (asked.value ->> 1) > ${capOf}))`,
  );
  return sql`not (${sql.join(exceeded, sql` or `)})`;
}

/** A line's allocation as a write of it reads it: its pool and cap, what was ordered, and the most an account without a cap of its own ordered. */
export interface AllocatedLine {
  poolQuantity: number | null;
  maxPerAccount: number | null;
  orderedQuantity: number;
  mostOrderedUncapped: number;
}

/** The accounts that have ordered the line and have no cap of their own: the line's maxPerAccount applies to them. */
const uncappedOrders = (line: { operationId: SQL; variantExternalId: SQL }) =>
  sql`from ${a} where ${a.operationId} = ${line.operationId} and ${a.variantExternalId} = ${line.variantExternalId}
    and not exists (select 1 from ${c} where ${c.operationId} = ${a.operationId} and ${c.variantExternalId} = ${a.variantExternalId} and ${c.accountId} = ${a.accountId})`;

export async function readAllocatedLines(
  db: Db,
  operationId: string,
  variantIds: readonly string[],
): Promise<Map<string, AllocatedLine & { variantExternalId: string }>> {
  const rows = await selectInChunks(l.variantExternalId, [...new Set(variantIds)], (keyIsIn) =>
    db
      .select({
        variantExternalId: l.variantExternalId,
        poolQuantity: l.poolQuantity,
        maxPerAccount: l.maxPerAccount,
        orderedQuantity: l.orderedQuantity,
        mostOrderedUncapped: sql<number>`coalesce((select max(${a.orderedQuantity}) ${uncappedOrders({ operationId: sql`${l.operationId}`, variantExternalId: sql`${l.variantExternalId}` })}), 0)`,
      })
      .from(l)
      .where(and(eq(l.operationId, operationId), keyIsIn)),
  );
  return new Map(rows.map((row) => [row.variantExternalId, row]));
}

/** As SQL: no account without a cap of its own has ordered more of a line than the line's maxPerAccount. */
export function uncappedWithin(operationId: string): SQL {
  return sql`not exists (select 1 from ${l} join ${a} on ${a.operationId} = ${l.operationId} and ${a.variantExternalId} = ${l.variantExternalId}
    where ${l.operationId} = ${operationId} and ${l.maxPerAccount} is not null and ${a.orderedQuantity} > ${l.maxPerAccount}
      and not exists (select 1 from ${c} where ${c.operationId} = ${a.operationId} and ${c.variantExternalId} = ${a.variantExternalId} and ${c.accountId} = ${a.accountId}))`;
}

/** Each (line, account) pair's own cap (null: none) and what the account ordered of the line, by capKeyOf. */
export async function readCapsOf(
  db: Db,
  operationId: string,
  pairs: readonly { variantExternalId: string; accountId: string }[],
): Promise<Map<string, { maxQuantity: number | null; ordered: number }>> {
  const found = new Map<string, { maxQuantity: number | null; ordered: number }>();
  for (const chunk of jsonChunks(pairs.map((pair) => [pair.variantExternalId, pair.accountId]))) {
    const rows = await db.all<{ variantExternalId: string; accountId: string; maxQuantity: number | null; ordered: number }>(
      sql`select pair.value ->> 0 as variantExternalId, pair.value ->> 1 as accountId, ${c.maxQuantity} as maxQuantity, coalesce(${a.orderedQuantity}, 0) as ordered
        from json_each(${chunk}) as pair
        left join ${c} on ${c.operationId} = ${operationId} and ${c.variantExternalId} = pair.value ->> 0 and ${c.accountId} = pair.value ->> 1
        left join ${a} on ${a.operationId} = ${operationId} and ${a.variantExternalId} = pair.value ->> 0 and ${a.accountId} = pair.value ->> 1`,
    );
    for (const row of rows) found.set(JSON.stringify([row.variantExternalId, row.accountId]), { maxQuantity: row.maxQuantity, ordered: row.ordered });
  }
  return found;
}

/** GET …/allocations/accounts: one page of the accounts' own caps, each with what its account ordered of the line. */
export async function listAccountCaps(ctx: ListContext, operationId: string, query: AccountCapsQuery) {
  const page = await listOperationRows(ctx, operationId, {
    definition: accountCapList,
    query,
    filters: [
      eq(c.operationId, operationId),
      eq(c.tenantId, ctx.principal.tenantId),
      query.variantIds && inJsonList(c.variantExternalId, query.variantIds),
      query.accountIds && inJsonList(c.accountId, query.accountIds),
    ],
    run: ({ where, orderBy, limit, cursorColumns }) =>
      ctx.db
        .select({
          variantExternalId: c.variantExternalId,
          accountId: c.accountId,
          maxQuantity: c.maxQuantity,
          orderedQuantity: sql<number>`coalesce(${a.orderedQuantity}, 0)`,
          updatedAt: c.updatedAt,
          ...cursorColumns,
        })
        .from(c)
        .leftJoin(a, and(eq(a.operationId, c.operationId), eq(a.variantExternalId, c.variantExternalId), eq(a.accountId, c.accountId)))
        .where(where)
        .orderBy(...orderBy)
        .limit(limit),
  });
  return page;
}

/**
 * What the best placed of `accountIds` may order now of each of `variantIds` (availableTo: the least of
 * the pool's rest, its cap's rest and the line's maxQuantity), by variant: one query for a page of lines.
 */
export async function readAvailability(
  db: Db,
  operationId: string,
  accountIds: readonly string[],
  variantIds: readonly string[],
): Promise<Map<string, number>> {
  const available = new Map<string, number>();
  if (!accountIds.length || !variantIds.length) return available;
  const rows = await db.all<LineAllocation & { accountId: string }>(
    sql`select ${l.variantExternalId} as variantExternalId, ${l.minQuantity} as minQuantity, ${l.maxQuantity} as maxQuantity,
        ${l.quantityIncrement} as quantityIncrement, ${l.poolQuantity} as poolQuantity, ${l.orderedQuantity} as orderedQuantity,
        buyer.value as accountId, coalesce(${c.maxQuantity}, ${l.maxPerAccount}) as cap, coalesce(${a.orderedQuantity}, 0) as accountOrdered
      from ${l} join json_each(${JSON.stringify(accountIds)}) as buyer
      left join ${c} on ${c.operationId} = ${l.operationId} and ${c.variantExternalId} = ${l.variantExternalId} and ${c.accountId} = buyer.value
      left join ${a} on ${a.operationId} = ${l.operationId} and ${a.variantExternalId} = ${l.variantExternalId} and ${a.accountId} = buyer.value
      where ${l.operationId} = ${operationId} and ${l.variantExternalId} in (select value from json_each(${JSON.stringify(variantIds)}))`,
  );
  for (const row of rows) available.set(row.variantExternalId, Math.max(available.get(row.variantExternalId) ?? 0, availableTo(row)));
  return available;
}
