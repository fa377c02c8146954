import { and, eq, gt, isNotNull, sql } from "drizzle-orm";
import type { Context } from "hono";
import { getVisibleOperation } from "../operations/queries";
import { accountLineTotals, operationAccounts, operationLines } from "../operations/tables";
import { ApiError } from "../platform/core/errors";
import type { Db } from "../platform/data/database";
import { computedListToken, openComputedListToken, type ComputedList } from "../platform/data/pagination";
import { selectInChunks } from "../platform/data/sql";
import type { AppBindings } from "../platform/http/context";
import { MAX_PLAN_PAGE, type PlanBody } from "./schemas";

/*
 * A proposal of accounts' caps that split each line's pool, changing nothing. Every account planned for
 * first keeps what it already ordered of the line; what is left of the pool is shared in whole packs
 * by weight (largest remainders first), so the caps never add up to more than the pool and none is
 * below what its account ordered: each page is a valid body for PUT …/allocations/accounts.
 */

interface PlannedLine {
  variantExternalId: string;
  poolQuantity: number;
  orderedQuantity: number;
  quantityIncrement: number;
}

export interface PlannedCap {
  variantExternalId: string;
  accountId: string;
  maxQuantity: number;
}

/** Splits `packs` among weights: each its floor share, then one more to the largest remainders (ties: in the order given). */
export function splitPacks(packs: number, weights: readonly number[]): number[] {
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  const even = total === 0;
  const shares = weights.map((weight) => (packs * (even ? 1 : weight)) / (even ? weights.length : total));
  const given = shares.map(Math.floor);
  let left = packs - given.reduce((sum, share) => sum + share, 0);
  const byRemainder = shares.map((share, i) => ({ i, remainder: share - Math.floor(share) })).sort((a, b) => b.remainder - a.remainder || a.i - b.i);
  for (const { i } of byRemainder) {
    if (left <= 0) break;
    given[i]++;
    left--;
  }
  return given;
}

/** The caps of one line for accounts with their weights and what each already ordered of it. */
export function planLine(line: PlannedLine, accounts: readonly { accountId: string; weight: number; ordered: number }[]): PlannedCap[] {
  if (!accounts.length) return [];
  const packs = Math.floor(Math.max(0, line.poolQuantity - line.orderedQuantity) / line.quantityIncrement);
  const given = splitPacks(
    packs,
    accounts.map((account) => account.weight),
  );
  return accounts.map((account, i) => ({
    variantExternalId: line.variantExternalId,
    accountId: account.accountId,
    maxQuantity: account.ordered + given[i] * line.quantityIncrement,
  }));
}

type Weights = (variantExternalId: string) => Map<string, number>;

/** Who is planned for, and each one's weight on a line. */
async function weightsOf(
  db: Db,
  c: Context<AppBindings>,
  operation: { id: string; type: string },
  body: PlanBody,
  variantIds: readonly string[],
): Promise<Weights> {
  const equal = (accountIds: Iterable<string>) => {
    const weights = new Map([...accountIds].map((accountId) => [accountId, 1]));
    return () => weights;
  };
  const { basis } = body;
  if (basis && "weights" in basis) {
    const given = new Map(Object.entries(basis.weights));
    return body.method === "equal" ? equal(given.keys()) : () => given;
  }
  if (basis && "operationId" in basis) {
    const earlier = await getVisibleOperation(db, c.var.principal, basis.operationId);
    const rows = await selectInChunks(accountLineTotals.variantExternalId, variantIds, (keyIsIn) =>
      db
        .select({ variantExternalId: accountLineTotals.variantExternalId, accountId: accountLineTotals.accountId, ordered: accountLineTotals.orderedQuantity })
        .from(accountLineTotals)
        .where(and(eq(accountLineTotals.operationId, earlier.id), keyIsIn, gt(accountLineTotals.orderedQuantity, 0))),
    );
    const byLine = new Map<string, Map<string, number>>();
    for (const row of rows)
      (byLine.get(row.variantExternalId) ?? byLine.set(row.variantExternalId, new Map()).get(row.variantExternalId)!).set(row.accountId, row.ordered);
    if (body.method === "equal") return equal(new Set(rows.map((row) => row.accountId)));
    return (variantExternalId) => byLine.get(variantExternalId) ?? new Map();
  }
  if (body.method === "proportional") {
    throw new ApiError("validation_failed", "A proportional plan needs a basis: an earlier Operation or weights.", {
      errors: [{ field: "body.basis", code: "required", message: "proportional needs basis { operationId } or { weights }" }],
    });
  }
  if (operation.type !== "PRIVATE") {
    throw new ApiError("validation_failed", "A PUBLIC Operation lists no accounts to share among: name them in basis (an earlier Operation or weights).", {
      errors: [{ field: "body.basis", code: "required", message: "a PUBLIC Operation needs basis { operationId } or { weights }" }],
    });
  }
  const attached = await db.select({ accountId: operationAccounts.accountId }).from(operationAccounts).where(eq(operationAccounts.operationId, operation.id));
  return equal(attached.map((row) => row.accountId));
}

/** POST …/allocations/plan: one page of the plan (the whole plan is computed again for each page: it is a pure function of the data). */
export async function planAllocation(c: Context<AppBindings>, operationId: string, body: PlanBody) {
  const { db, principal } = c.var;
  const list: ComputedList = {
    name: "allocation-plan",
    secret: c.env.PAGINATION_SECRET,
    scope: { tenant: principal.tenantId, operationId },
    binding: { ...body, nextToken: undefined, limit: undefined },
  };
  const after = await openComputedListToken(list, body.nextToken);
  const operation = await getVisibleOperation(db, principal, operationId);
  const lines = await pooledLines(db, operationId, body.variantExternalIds);
  const variantIds = lines.map((line) => line.variantExternalId);
  const [weights, ordered] = await Promise.all([weightsOf(db, c, operation, body, variantIds), orderedByAccount(db, operationId, variantIds)]);
  const caps: PlannedCap[] = [];
  for (const line of lines) {
    const lineWeights = weights(line.variantExternalId);
    const accounts = [...lineWeights.keys()].sort().map((accountId) => ({
      accountId,
      weight: lineWeights.get(accountId)!,
      ordered: ordered.get(line.variantExternalId)?.get(accountId) ?? 0,
    }));
    caps.push(...planLine(line, accounts));
  }
  // In (variantExternalId, accountId) order: lines come sorted, accounts are sorted per line.
  const start = after
    ? caps.findIndex((cap) => cap.variantExternalId > String(after[0]) || (cap.variantExternalId === after[0] && cap.accountId > String(after[1])))
    : 0;
  const limit = body.limit ?? MAX_PLAN_PAGE;
  const from = start === -1 ? caps.length : start;
  const items = caps.slice(from, from + limit);
  const last = items.at(-1);
  return { items, nextToken: last && from + limit < caps.length ? await computedListToken(list, [last.variantExternalId, last.accountId]) : null };
}

/** The lines to plan: those named (422 unknown_variants for any that is not a line), or every line with a pool; only lines with a pool are planned. */
async function pooledLines(db: Db, operationId: string, named: readonly string[] | undefined): Promise<PlannedLine[]> {
  const l = operationLines;
  const columns = {
    variantExternalId: l.variantExternalId,
    poolQuantity: l.poolQuantity,
    orderedQuantity: l.orderedQuantity,
    quantityIncrement: l.quantityIncrement,
  };
  const rows = named
    ? await selectInChunks(l.variantExternalId, [...new Set(named)], (keyIsIn) =>
        db
          .select(columns)
          .from(l)
          .where(and(eq(l.operationId, operationId), keyIsIn)),
      )
    : await db
        .select(columns)
        .from(l)
        .where(and(eq(l.operationId, operationId), isNotNull(l.poolQuantity)));
  if (named) {
    const found = new Set(rows.map((row) => row.variantExternalId));
    const unknown = [...new Set(named)].filter((key) => !found.has(key));
    if (unknown.length)
      throw new ApiError("unknown_variants", `${unknown.length} variants are not lines of this Operation.`, { unknownVariantExternalIds: unknown });
  }
  return rows
    .filter((row): row is PlannedLine => row.poolQuantity !== null)
    .sort((a, b) => (a.variantExternalId < b.variantExternalId ? -1 : a.variantExternalId > b.variantExternalId ? 1 : 0));
}

/** What each account ordered of each line, by line then account. */
async function orderedByAccount(db: Db, operationId: string, variantIds: readonly string[]): Promise<Map<string, Map<string, number>>> {
  const rows = await selectInChunks(accountLineTotals.variantExternalId, variantIds, (keyIsIn) =>
    db
      .select({ variantExternalId: accountLineTotals.variantExternalId, accountId: accountLineTotals.accountId, ordered: accountLineTotals.orderedQuantity })
      .from(accountLineTotals)
      .where(and(eq(accountLineTotals.operationId, operationId), keyIsIn, sql`${accountLineTotals.orderedQuantity} > 0`)),
  );
  const byLine = new Map<string, Map<string, number>>();
  for (const row of rows)
    (byLine.get(row.variantExternalId) ?? byLine.set(row.variantExternalId, new Map()).get(row.variantExternalId)!).set(row.accountId, row.ordered);
  return byLine;
}
