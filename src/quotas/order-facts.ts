import { sql } from "drizzle-orm";
import type { Db } from "../platform/data/database";
import { insertFromJson, sqlText } from "../platform/data/sql";
import { quotaOrderFacts } from "./tables";
import type { QuotaOrder, QuotaTarget } from "../common/rule-index";

/*
 * Quota orders kept as facts: what every order placed or refused was evaluated as (one per supplier
 * of the order), so a rule change can be replayed against real history (impact.ts). The table is
 * clustered by (account, supplier, store), the replay's reading order; '' stands for no supplier or
 * no store there (row values then compare), and is turned back into null here, both ways.
 */

/** The facts of one placed or refused order, for the batch that places it or records its refusal. */
export function quotaOrderFactRows(tenantId: string, record: { id: string; at: string }, orders: readonly QuotaOrder[]) {
  const f = quotaOrderFacts;
  return insertFromJson(f, orders, [
    [f.tenantId, tenantId],
    [f.accountId, (order) => order.accountId],
    [f.supplierId, (order) => order.supplierId ?? ""],
    [f.storeId, (order) => order.storeId ?? ""],
    [f.recordId, record.id],
    [f.at, record.at],
    [f.amount, (order) => order.amount],
  ]);
}

/** A time window of facts, both ends included, as stored times (ISO-8601 UTC with milliseconds). */
export interface FactWindow {
  from: string;
  to: string;
}

/** One (account, supplier, store) key's amounts on a page; a key may go on into the next page. */
export interface FactGroup extends QuotaTarget {
  amounts: number[];
}

const f = quotaOrderFacts;
const keyColumns = sql`${f.accountId}, ${f.supplierId}, ${f.storeId}, ${f.recordId}`;
/**
 * The next page of the window's facts in the table's own order, after the cursor ?2–?5, at most ?8
 * of them, folded per key (amounts as one JSON array; `last` is the key's last record on the page,
 * which is where the next page starts). A keyset range on the primary key: no sort, no rows skipped; the
 * window is checked on the rows the range walks. test/quotas/impact-reads-plan.test.ts holds its plan.
 */
export const FACT_PAGE_SQL = sqlText(
  sql`select account_id, supplier_id, store_id, json_group_array(amount) as amounts, max(record_id) as last
    from (select ${f.accountId} as account_id, ${f.supplierId} as supplier_id, ${f.storeId} as store_id, ${f.recordId} as record_id, ${f.amount} as amount
      from ${f} where ${f.tenantId} = ${sql.raw("?1")} and (${keyColumns}) > (${sql.raw("?2, ?3, ?4, ?5")})
        and ${f.at} >= ${sql.raw("?6")} and ${f.at} <= ${sql.raw("?7")}
      order by ${keyColumns} limit ${sql.raw("?8")})
    group by account_id, supplier_id, store_id order by account_id, supplier_id, store_id`,
);

interface PageRow {
  account_id: string;
  supplier_id: string;
  store_id: string;
  amounts: string;
  last: string;
}

/**
 * The window's facts, a page of at most `pageSize` at a time, in key order: one query per page, and
 * only one page held at a time whatever the window holds.
 */
export async function* factPages(db: Db, tenantId: string, window: FactWindow, pageSize: number): AsyncGenerator<FactGroup[]> {
  const statement = db.$client.prepare(FACT_PAGE_SQL);
  let after: [string, string, string, string] = ["", "", "", ""];
  for (;;) {
    const { results } = await statement.bind(tenantId, ...after, window.from, window.to, pageSize).all<PageRow>();
    let facts = 0;
    const groups = results.map((row): FactGroup => {
      const amounts = JSON.parse(row.amounts) as number[];
      facts += amounts.length;
      return { accountId: row.account_id, supplierId: row.supplier_id || null, storeId: row.store_id || null, amounts };
    });
    if (groups.length) yield groups;
    if (facts < pageSize) return;
    const last = results[results.length - 1];
    after = [last.account_id, last.supplier_id, last.store_id, last.last];
  }
}
