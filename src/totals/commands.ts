import { and, eq, sql, type SQL } from "drizzle-orm";
import type { AnySQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import { accountLineTotals, operationAccountTotals, operationDailyTotals, operationLines, operations, operationTotals } from "../operations/tables";
import type { Db } from "../platform/data/database";
import { inJsonChunks, insertFromJson, jsonChunks, type Statement } from "../platform/data/sql";

/*
 * The statements that keep an Operation's totals, for the batch of the change they count: an order
 * placed or cancelled (in the Operation's Durable Object), a placement refused, accounts attached or
 * detached. Each adds its figures to the rows (an upsert of differences), so totals are exact whatever
 * ran before, and never need the orders read again.
 */

/** What an order adds to the totals when placed (and takes back when cancelled). */
export interface CountedOrder {
  tenantId: string;
  operationId: string;
  accountId: string;
  amount: number;
  /** When it was placed (a cancellation's day is its own: `at` of cancelledStatements). */
  placedAt: string;
  lines: readonly { variantExternalId: string; quantity: number }[];
}

export type RefusalReason = "quota" | "allocation";

/** Figures added to a totals row: each column's difference. */
type Differences = Record<string, number>;

const dayOf = (at: string) => at.slice(0, 10);

/**
 * `insert … values (key, differences) on conflict (key) do update set column = column + excluded.column`:
 * the row is made at the first figure and added to after. `when` (a condition in SQL) guards the insert.
 */
function addTo(
  table: SQLiteTable,
  key: Record<string, string>,
  differences: Differences,
  options: { set?: Record<string, SQL>; values?: Record<string, string | null>; when?: SQL } = {},
): Statement {
  const keyNames = Object.keys(key);
  const columns = [...keyNames, ...Object.keys(options.values ?? {}), ...Object.keys(differences)];
  const values = [...Object.values(key), ...Object.values(options.values ?? {}), ...Object.values(differences)];
  const names = sql.join(
    columns.map((column) => sql.identifier(column)),
    sql`, `,
  );
  const selected = sql.join(
    values.map((value) => sql`${value}`),
    sql`, `,
  );
  const conflictKey = sql.join(
    keyNames.filter((name) => name !== "tenant_id").map((name) => sql.identifier(name)),
    sql`, `,
  );
  const updates = [
    ...Object.keys(differences).map((column) => sql`${sql.identifier(column)} = ${sql.identifier(column)} + excluded.${sql.identifier(column)}`),
    ...Object.entries(options.set ?? {}).map(([column, value]) => sql`${sql.identifier(column)} = ${value}`),
  ];
  return sql`insert into ${table} (${names}) select ${selected} where ${options.when ?? sql`true`}
    on conflict (${conflictKey}) do update set ${sql.join(updates, sql`, `)}`;
}

const name = (column: AnySQLiteColumn) => column.name;

/** The Operation's, the account's and the day's rows, each with its differences. */
function rowsOf(
  tenantId: string,
  operationId: string,
  accountId: string,
  at: string,
  figures: { operation: Differences; account: Differences; day: Differences; lastOrderAt?: string },
  when?: SQL,
): Statement[] {
  const operationKey = { [name(operationTotals.operationId)]: operationId, [name(operationTotals.tenantId)]: tenantId };
  return [
    addTo(operationTotals, operationKey, figures.operation, {
      values: { [name(operationTotals.updatedAt)]: at },
      set: { [name(operationTotals.updatedAt)]: sql`excluded.${sql.identifier(name(operationTotals.updatedAt))}` },
      when,
    }),
    addTo(
      operationAccountTotals,
      {
        [name(operationAccountTotals.operationId)]: operationId,
        [name(operationAccountTotals.accountId)]: accountId,
        [name(operationAccountTotals.tenantId)]: tenantId,
      },
      figures.account,
      figures.lastOrderAt === undefined
        ? { when }
        : {
            values: { [name(operationAccountTotals.lastOrderAt)]: figures.lastOrderAt },
            // The latest placement, whichever order this is.
            set: {
              [name(operationAccountTotals.lastOrderAt)]:
                sql`max(coalesce(${sql.identifier(name(operationAccountTotals.lastOrderAt))}, ''), excluded.${sql.identifier(name(operationAccountTotals.lastOrderAt))})`,
            },
            when,
          },
    ),
    addTo(
      operationDailyTotals,
      { [name(operationDailyTotals.operationId)]: operationId, [name(operationDailyTotals.day)]: dayOf(at), [name(operationDailyTotals.tenantId)]: tenantId },
      figures.day,
      { when },
    ),
  ];
}

/**
 * Each of the order's lines gains (sign 1) or gives back (sign −1) its quantity and one order, on the
 * line and on what the account has ordered of it (what its cap is checked against).
 */
function lineStatements(order: CountedOrder, sign: 1 | -1): Statement[] {
  if (!order.lines.length) return [];
  const a = accountLineTotals;
  return jsonChunks(order.lines.map((line) => [line.variantExternalId, line.quantity])).flatMap((lines) => [
    // Materialized, the ordered lines drive (a key search each); inline, SQLite read them all for each of the Operation's lines.
    sql`with ordered as materialized (select value ->> 0 as variant, value ->> 1 as quantity from json_each(${lines}))
        update ${operationLines} set
          ${sql.identifier(name(operationLines.orderedQuantity))} = ${operationLines.orderedQuantity} + ${sign} * ordered.quantity,
          ${sql.identifier(name(operationLines.orderCount))} = ${operationLines.orderCount} + ${sign}
        from ordered
        where ${operationLines.operationId} = ${order.operationId} and ${operationLines.variantExternalId} = ordered.variant`,
    sql`insert into ${a} (${sql.identifier(name(a.operationId))}, ${sql.identifier(name(a.variantExternalId))}, ${sql.identifier(name(a.accountId))}, ${sql.identifier(name(a.tenantId))}, ${sql.identifier(name(a.orderedQuantity))})
        select ${order.operationId}, value ->> 0, ${order.accountId}, ${order.tenantId}, ${sign} * (value ->> 1) from json_each(${lines}) where true
        on conflict do update set ${sql.identifier(name(a.orderedQuantity))} = ${a.orderedQuantity} + excluded.${sql.identifier(name(a.orderedQuantity))}`,
  ]);
}

/** What placing `order` adds: its lines' ordered quantities and counts, and the Operation's, the account's and the day's totals. */
export function placedStatements(order: CountedOrder): Statement[] {
  const placed = { orders: 1, amount: order.amount };
  return [
    ...lineStatements(order, 1),
    ...rowsOf(order.tenantId, order.operationId, order.accountId, order.placedAt, {
      operation: placed,
      account: placed,
      day: placed,
      lastOrderAt: order.placedAt,
    }),
  ];
}

/** What cancelling `order` at `at` takes back: the figures its placement added, and one cancellation (on the day it is cancelled). */
export function cancelledStatements(order: CountedOrder, at: string): Statement[] {
  const undone = { orders: -1, amount: -order.amount, cancelled: 1 };
  return [
    ...lineStatements(order, -1),
    ...rowsOf(order.tenantId, order.operationId, order.accountId, at, {
      operation: undone,
      account: undone,
      day: { cancellations: 1, cancelled_amount: order.amount },
    }),
  ];
}

/**
 * A placement refused for `reason`, counted where its event is recorded. Outside the Operation's
 * object (a quota refusal is recorded by the Worker), so it counts only while the Operation exists.
 */
export function refusalStatements(refusal: { tenantId: string; operationId: string; accountId: string; at: string; reason: RefusalReason }): Statement[] {
  const column = refusal.reason === "quota" ? "quota_refusals" : "allocation_refusals";
  const exists = sql`exists (select 1 from ${operations} where ${operations.id} = ${refusal.operationId})`;
  return rowsOf(
    refusal.tenantId,
    refusal.operationId,
    refusal.accountId,
    refusal.at,
    { operation: { [column]: 1 }, account: { [column]: 1 }, day: { [column]: 1 } },
    exists,
  );
}

/** Attached accounts get their (empty) row: the accounts that have not ordered are one range of the table. */
export function attachedStatements(tenantId: string, operationId: string, accountIds: readonly string[]): Statement[] {
  return insertFromJson(
    operationAccountTotals,
    accountIds,
    [
      [operationAccountTotals.operationId, operationId],
      [operationAccountTotals.accountId, (accountId) => accountId],
      [operationAccountTotals.tenantId, tenantId],
    ],
    { target: [operationAccountTotals.operationId, operationAccountTotals.accountId] },
  );
}

/** Detached accounts lose their row unless it counts something (an order, a cancellation, a refusal). */
export function detachedStatements(db: Db, operationId: string, accountIds: readonly string[]): Statement[] {
  const t = operationAccountTotals;
  return inJsonChunks(t.accountId, accountIds).map((accountIsIn) =>
    db
      .delete(t)
      .where(
        and(
          eq(t.operationId, operationId),
          accountIsIn,
          sql`${t.orders} = 0 and ${t.cancelled} = 0 and ${t.quotaRefusals} = 0 and ${t.allocationRefusals} = 0`,
        ),
      ),
  );
}
