import { idAtTime, idPrefixes } from "../../src/platform/core/ids";
import { jsonChunks } from "../../src/platform/data/sql";

/** The shape of the bench's generated orders (seedOrders). */
export interface OrderSeed {
  /** Orders `from` … `from + count - 1` of the Operation. */
  from: number;
  count: number;
  /** Accounts A0 … A<accounts - 1>, in turn. */
  accounts: number;
  /** The orders lie within the last `days` days before `now`. */
  days: number;
  /** Lines per order, spread over the Operation's lines. */
  linesPerOrder: number;
  now: number;
}

interface SeededOrder {
  id: string;
  accountId: string;
  createdAt: string;
  total: number;
  lines: { variantExternalId: string; quantity: number; unitPrice: number; supplierId: null }[];
}

/** What a seeding call added: the suite checks the totals the API reads against the sum of these. */
export interface SeededFigures {
  orders: number;
  amount: number;
  quantity: number;
}

/**
 * Order i of a seed: account A<i mod accounts>, placed up to `days` before `now`, with
 * `linesPerOrder` distinct lines of the Operation (spread evenly from a start that moves with i).
 */
function seededOrder(seed: OrderSeed, variants: readonly string[], i: number): SeededOrder {
  const at = seed.now - ((i * 7919) % (seed.days * 86_400)) * 1000;
  const stride = Math.max(1, Math.floor(variants.length / seed.linesPerOrder));
  const lines = Array.from({ length: Math.min(seed.linesPerOrder, variants.length) }, (_, k) => {
    const v = (i * 31 + k * stride) % variants.length;
    return { variantExternalId: variants[v], quantity: 1 + ((i + k) % 6), unitPrice: 500 + (v % 50) * 10, supplierId: null };
  });
  return {
    // The id's time is the order's, as newId makes it; the number keeps it unique.
    id: `${idAtTime(idPrefixes.order, at)}BENCH${i.toString(32).toUpperCase().padStart(11, "0")}`,
    accountId: `A${i % seed.accounts}`,
    createdAt: new Date(at).toISOString(),
    total: lines.reduce((sum, line) => sum + line.quantity * line.unitPrice, 0),
    lines,
  };
}

/** Adds `figures` to the entry of `key` in `map`, column by column. */
function add(map: Map<string, number[]>, key: string, figures: number[]) {
  const sums = map.get(key);
  if (!sums) {
    map.set(key, [...figures]);
    return;
  }
  for (const [i, figure] of figures.entries()) sums[i] += figure;
}

/**
 * Bench-only fast seeding of an Operation's orders with their totals, in one batch: the orders and
 * their order_lines rows as the real batch writes them, and the totals as differences added to the
 * same rows with the same upserts the real batch runs (totals/commands.ts), only summed over the
 * call's orders first (one statement per table rather than four per order). Placing and cancelling
 * are timed through the API; this only makes an Operation of 100,000 orders in a minute or two.
 */
export async function seedOrders(database: D1Database, tenantId: string, operationId: string, seed: OrderSeed): Promise<SeededFigures | null> {
  const { results: lineRows } = await database
    .prepare("select variant_external_id as v from operation_lines where operation_id = ?1 and tenant_id = ?2 order by variant_external_id")
    .bind(operationId, tenantId)
    .all<{ v: string }>();
  if (!lineRows.length) return null;
  const variants = lineRows.map((row) => row.v);
  const orders = Array.from({ length: seed.count }, (_, n) => seededOrder(seed, variants, seed.from + n));

  const lines = new Map<string, number[]>();
  const accounts = new Map<string, number[]>();
  const days = new Map<string, number[]>();
  const lastOrderAt = new Map<string, string>();
  let latest = "";
  for (const order of orders) {
    if (order.createdAt > latest) latest = order.createdAt;
    for (const line of order.lines) add(lines, line.variantExternalId, [line.quantity, 1]);
    add(accounts, order.accountId, [1, order.total]);
    add(days, order.createdAt.slice(0, 10), [1, order.total]);
    if ((lastOrderAt.get(order.accountId) ?? "") < order.createdAt) lastOrderAt.set(order.accountId, order.createdAt);
  }
  const figures: SeededFigures = {
    orders: orders.length,
    amount: orders.reduce((sum, order) => sum + order.total, 0),
    quantity: [...lines.values()].reduce((sum, [quantity]) => sum + quantity, 0),
  };

  const statements = [
    ...jsonChunks(orders.map((order) => [order.id, order.accountId, order.lines, order.total, order.createdAt])).map((chunk) =>
      database
        .prepare(
          `insert into orders (id, tenant_id, operation_id, account_id, cart_id, store_id, lines, total, created_by, created_at, warnings, status)
           select value ->> 0, ?1, ?2, value ->> 1, null, null, value ->> 2, value ->> 3, 'key:bench', value ->> 4, '[]', 'PLACED' from json_each(?3)`,
        )
        .bind(tenantId, operationId, chunk),
    ),
    ...jsonChunks(orders.flatMap((order) => order.lines.map((line) => [line.variantExternalId, order.id, line.quantity]))).map((chunk) =>
      database
        .prepare(
          `insert into order_lines (operation_id, variant_external_id, order_id, tenant_id, quantity)
           select ?1, value ->> 0, value ->> 1, ?2, value ->> 2 from json_each(?3)`,
        )
        .bind(operationId, tenantId, chunk),
    ),
    ...jsonChunks([...lines].map(([variant, [quantity, count]]) => [variant, quantity, count])).map((chunk) =>
      database
        .prepare(
          // Materialized, the ordered lines drive: one primary-key search per line (else SQLite scans them per line of the Operation).
          `with ordered as materialized (select value ->> 0 as variant, value ->> 1 as quantity, value ->> 2 as orders from json_each(?2))
           update operation_lines set ordered_quantity = ordered_quantity + ordered.quantity, order_count = order_count + ordered.orders
           from ordered where operation_id = ?1 and variant_external_id = ordered.variant`,
        )
        .bind(operationId, chunk),
    ),
    database
      .prepare(
        `insert into operation_totals (operation_id, tenant_id, orders, amount, updated_at) values (?1, ?2, ?3, ?4, ?5)
         on conflict (operation_id) do update set orders = orders + excluded.orders, amount = amount + excluded.amount, updated_at = excluded.updated_at`,
      )
      .bind(operationId, tenantId, figures.orders, figures.amount, latest),
    ...jsonChunks([...accounts].map(([account, [count, amount]]) => [account, count, amount, lastOrderAt.get(account)])).map((chunk) =>
      database
        .prepare(
          `insert into operation_account_totals (operation_id, account_id, tenant_id, orders, amount, last_order_at)
           select ?1, value ->> 0, ?2, value ->> 1, value ->> 2, value ->> 3 from json_each(?3) where true
           on conflict (operation_id, account_id) do update set orders = orders + excluded.orders, amount = amount + excluded.amount,
             last_order_at = max(coalesce(last_order_at, ''), excluded.last_order_at)`,
        )
        .bind(operationId, tenantId, chunk),
    ),
    ...jsonChunks([...days].map(([day, [count, amount]]) => [day, count, amount])).map((chunk) =>
      database
        .prepare(
          `insert into operation_daily_totals (operation_id, day, tenant_id, orders, amount)
           select ?1, value ->> 0, ?2, value ->> 1, value ->> 2 from json_each(?3) where true
           on conflict (operation_id, day) do update set orders = orders + excluded.orders, amount = amount + excluded.amount`,
        )
        .bind(operationId, tenantId, chunk),
    ),
    database.prepare("update operations set order_count = order_count + ?3 where id = ?1 and tenant_id = ?2").bind(operationId, tenantId, figures.orders),
  ];
  await database.batch(statements);
  return figures;
}

/**
 * What GET …/totals reads (the Operation's visibility, its totals row, the accounts that ordered, its
 * lines' figures) as one statement rather than four queries in parallel: the suite times it beside the
 * route, to tell the cost of the round trips from the cost of the reads. Null for no such Operation.
 */
export async function totalsInOneRead(database: D1Database, tenantId: string, operationId: string) {
  return database
    .prepare(
      `select t.orders, t.amount, t.cancelled, t.quota_refusals as quota, t.allocation_refusals as allocation,
         (select count(*) from operation_account_totals a where a.operation_id = o.id and a.orders > 0) as accounts,
         (select coalesce(sum(l.ordered_quantity > 0), 0) from operation_lines l where l.operation_id = o.id) as ordered,
         (select coalesce(sum(l.recommended_quantity is not null and l.ordered_quantity < l.recommended_quantity), 0)
            from operation_lines l where l.operation_id = o.id) as belowRecommended
       from operations o left join operation_totals t on t.operation_id = o.id
       where o.id = ?1 and o.tenant_id = ?2`,
    )
    .bind(operationId, tenantId)
    .first();
}
