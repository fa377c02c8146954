import { and, eq, gt, gte, isNotNull, lte, or, sql, type SQL } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import type { Context } from "hono";
import { getVisibleOperation } from "../operations/queries";
import { accountLineTotals, operationAccounts, operationLines } from "../operations/tables";
import { ApiError } from "../platform/core/errors";
import type { Db } from "../platform/data/database";
import { computedListToken, openComputedListToken, type ComputedList } from "../platform/data/pagination";
import { existingKeys, inJsonChunks } from "../platform/data/sql";
import type { AppBindings } from "../platform/http/context";
import { MAX_PLAN_PAGE, type PlanBody } from "./schemas";

/*
 * A proposal of accounts' caps that split each line's pool, changing nothing. Every account planned for
 * first keeps what it already ordered of the line; what is left of the pool is shared in whole packs
 * by weight (largest remainders first), so the caps never add up to more than the pool and none is
 * below what its account ordered: each page is a valid body for PUT …/allocations/accounts.
 *
 * Each line's pool is split on its own, so a page reads and computes only the lines it covers: caps
 * come by line then account, and a nextToken names the last cap sent (its line, and its account's
 * place in the line).
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

/** An account a line's pool is shared with: its weight, and what it already ordered of the line. */
interface Share {
  accountId: string;
  weight: number;
  ordered: number;
}

/** A line of a page, its shares by account, and how many of its caps pages before this one sent. */
interface PageLine {
  line: PlannedLine;
  shares: Share[];
  sent: number;
}

/** Where a page starts: after the cap of this line and account (a nextToken's), or at the first line. */
type After = { variantExternalId: string; accountId: string } | null;

/** Whom each pool is shared with: the same accounts on every line (by account), or each line's own buyers of an earlier Operation. */
type Shares = { everyLine: { accountId: string; weight: number }[] } | { earlierOperationId: string };

const l = operationLines;
/** What the Operation planned for already sells, beside the earlier Operation's totals in one query. */
const ownTotals = alias(accountLineTotals, "own_totals");
const lineColumns = {
  variantExternalId: l.variantExternalId,
  poolQuantity: sql<number>`${l.poolQuantity}`.as("pool_quantity"),
  orderedQuantity: l.orderedQuantity,
  quantityIncrement: l.quantityIncrement,
};
const byKey = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The conditions on operation_lines that pick the planned lines, each for a run of them in order:
 * every line with a pool, or those named that have one (a condition per chunk of the sorted names, usually one).
 */
function plannedLines(named: readonly string[] | undefined): SQL[] {
  const pooled = isNotNull(l.poolQuantity);
  if (!named) return [pooled];
  return inJsonChunks(l.variantExternalId, [...new Set(named)].sort(byKey)).map((isNamed) => and(pooled, isNamed) as SQL);
}

/**
 * The rows of a query over the planned lines, in order, until `sizeOf` them reaches `limit` (rows, or lines):
 * one query per condition, as far as needed, each asked for what is still missing.
 */
async function firstRows<Row>(
  planned: readonly SQL[],
  limit: number,
  query: (isPlanned: SQL, missing: number) => Promise<Row[]>,
  sizeOf: (rows: readonly Row[]) => number = (rows) => rows.length,
): Promise<Row[]> {
  const rows: Row[] = [];
  for (const isPlanned of planned) {
    const missing = limit - sizeOf(rows);
    if (missing <= 0) break;
    rows.push(...(await query(isPlanned, missing)));
  }
  return rows;
}

/** 422 unknown_variants for any named variant that is not a line of the Operation. */
async function requireLines(db: Db, operationId: string, named: readonly string[]): Promise<void> {
  const found = await existingKeys(db, l.variantExternalId, named, eq(l.operationId, operationId));
  const unknown = [...new Set(named)].filter((key) => !found.has(key));
  if (unknown.length)
    throw new ApiError("unknown_variants", `${unknown.length} variants are not lines of this Operation.`, { unknownVariantExternalIds: unknown });
}

/** Equal shares among these accounts, on every line. */
function equalShares(accountIds: Iterable<string>): Shares {
  return { everyLine: [...new Set(accountIds)].sort(byKey).map((accountId) => ({ accountId, weight: 1 })) };
}

/** The shares the body names outright (weights, or an earlier Operation's buyers line by line): a page's rows can be read at once. */
function sharesInBody(body: PlanBody): Shares | null {
  const { basis } = body;
  if (basis && "weights" in basis) {
    if (body.method === "equal") return equalShares(Object.keys(basis.weights));
    return {
      everyLine: Object.entries(basis.weights)
        .map(([accountId, weight]) => ({ accountId, weight }))
        .sort((a, b) => byKey(a.accountId, b.accountId)),
    };
  }
  if (basis && "operationId" in basis && body.method === "proportional") return { earlierOperationId: basis.operationId };
  return null;
}

/** Whom each pool is shared with: as the body says, or read (who ordered any planned line of the earlier Operation; the attached accounts). */
async function sharesOf(db: Db, operationId: string, body: PlanBody, planned: readonly SQL[]): Promise<Shares> {
  const given = sharesInBody(body);
  if (given) return given;
  const { basis } = body;
  if (basis && "operationId" in basis) {
    // Equal shares among all who ordered any planned line there: the one read of a page that spans the whole plan.
    const e = accountLineTotals;
    const buyers = await Promise.all(
      planned.map((isPlanned) =>
        db
          .selectDistinct({ accountId: e.accountId })
          .from(l)
          .innerJoin(e, and(eq(e.operationId, basis.operationId), eq(e.variantExternalId, l.variantExternalId), gt(e.orderedQuantity, 0)))
          .where(and(eq(l.operationId, operationId), isPlanned)),
      ),
    );
    return equalShares(buyers.flat().map((row) => row.accountId));
  }
  if (body.method === "proportional") {
    throw new ApiError("validation_failed", "A proportional plan needs a basis: an earlier Operation or weights.", {
      errors: [{ field: "body.basis", code: "required", message: "proportional needs basis { operationId } or { weights }" }],
    });
  }
  const attached = await db.select({ accountId: operationAccounts.accountId }).from(operationAccounts).where(eq(operationAccounts.operationId, operationId));
  return equalShares(attached.map((row) => row.accountId));
}

/** Distinct lines among rows in line order. */
const linesIn = (rows: readonly { variantExternalId: string }[]) => rows.filter((row, i) => row.variantExternalId !== rows[i - 1]?.variantExternalId).length;

/**
 * A page's lines when every line is shared among the same accounts: just enough whole lines from
 * where the page starts, with what each account already ordered of them, in one query.
 */
async function pageLinesForEveryLine(
  db: Db,
  operationId: string,
  planned: readonly SQL[],
  accounts: readonly { accountId: string; weight: number }[],
  after: After,
  limit: number,
): Promise<PageLine[]> {
  if (!accounts.length) return [];
  // limit + 1 caps after the start (the one more says whether a page follows), and the start's line whole.
  const count = Math.ceil((limit + 1) / accounts.length) + (after ? 1 : 0);
  const o = accountLineTotals;
  const rows = await firstRows(
    planned,
    count,
    (isPlanned, missing) => {
      const lines = db
        .select(lineColumns)
        .from(l)
        .where(and(eq(l.operationId, operationId), isPlanned, after ? gte(l.variantExternalId, after.variantExternalId) : undefined))
        .orderBy(l.variantExternalId)
        .limit(missing)
        .as("page_lines");
      return db
        .select({
          variantExternalId: lines.variantExternalId,
          poolQuantity: lines.poolQuantity,
          orderedQuantity: lines.orderedQuantity,
          quantityIncrement: lines.quantityIncrement,
          accountId: o.accountId,
          accountOrdered: o.orderedQuantity,
        })
        .from(lines)
        .leftJoin(o, and(eq(o.operationId, operationId), eq(o.variantExternalId, lines.variantExternalId), gt(o.orderedQuantity, 0)))
        .orderBy(lines.variantExternalId);
    },
    linesIn,
  );
  const pageLines: { line: PlannedLine; ordered: Map<string, number> }[] = [];
  for (const { accountId, accountOrdered, ...line } of rows) {
    if (pageLines.at(-1)?.line.variantExternalId !== line.variantExternalId) pageLines.push({ line, ordered: new Map() });
    if (accountId !== null && accountOrdered !== null) pageLines.at(-1)!.ordered.set(accountId, accountOrdered);
  }
  const sentOfFirst = after ? accounts.filter((account) => account.accountId <= after.accountId).length : 0;
  return pageLines.map(({ line, ordered }) => ({
    line,
    shares: accounts.map((account) => ({ ...account, ordered: ordered.get(account.accountId) ?? 0 })),
    sent: line.variantExternalId === after?.variantExternalId ? sentOfFirst : 0,
  }));
}

/**
 * A page's lines in proportion to an earlier Operation's orders, each line shared among its own buyers
 * there: their rows in (line, account) order from where the page starts, limit + 1 of them, with the
 * start's line before them and the rest of the line they cut.
 */
async function pageLinesByEarlierOrders(
  db: Db,
  operationId: string,
  planned: readonly SQL[],
  earlierOperationId: string,
  after: After,
  limit: number,
): Promise<PageLine[]> {
  const e = accountLineTotals;
  const rows = (where: SQL | undefined) =>
    db
      .select({ ...lineColumns, accountId: e.accountId, weight: e.orderedQuantity, ordered: sql<number>`coalesce(${ownTotals.orderedQuantity}, 0)` })
      .from(l)
      // CROSS JOIN keeps the lines the outer loop in SQLite: rows come by (line, account) without a sort of them all.
      .crossJoin(e)
      .leftJoin(
        ownTotals,
        and(eq(ownTotals.operationId, operationId), eq(ownTotals.variantExternalId, l.variantExternalId), eq(ownTotals.accountId, e.accountId)),
      )
      .where(
        and(
          eq(l.operationId, operationId),
          eq(e.operationId, earlierOperationId),
          eq(e.variantExternalId, l.variantExternalId),
          gt(e.orderedQuantity, 0),
          where,
        ),
      )
      .orderBy(l.variantExternalId, e.accountId);
  const inLine = (variantExternalId: string) => eq(l.variantExternalId, variantExternalId);
  const [sent, following] = await Promise.all([
    after ? rows(and(inLine(after.variantExternalId), lte(e.accountId, after.accountId))) : [],
    firstRows(planned, limit + 1, (isPlanned, missing) =>
      rows(
        and(
          isPlanned,
          after ? gte(l.variantExternalId, after.variantExternalId) : undefined,
          after ? or(gt(l.variantExternalId, after.variantExternalId), gt(e.accountId, after.accountId)) : undefined,
        ),
      ).limit(missing),
    ),
  ]);
  const last = following[limit - 1];
  const stop = following[limit];
  const rest =
    stop && stop.variantExternalId === last.variantExternalId ? await rows(and(inLine(last.variantExternalId), gt(e.accountId, stop.accountId))) : [];
  const lines: PageLine[] = [];
  for (const row of [...sent, ...following, ...rest]) {
    const { accountId, weight, ordered, ...line } = row;
    let current = lines.at(-1);
    if (current?.line.variantExternalId !== line.variantExternalId) {
      current = { line, shares: [], sent: line.variantExternalId === after?.variantExternalId ? sent.length : 0 };
      lines.push(current);
    }
    current.shares.push({ accountId, weight, ordered });
  }
  return lines;
}

/** Every promise's value, or the first failure in the order given, not in time: a 404 comes before what it hides. */
async function inOrder<T extends readonly unknown[]>(promises: T): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const outcomes = await Promise.allSettled(promises);
  for (const outcome of outcomes) if (outcome.status === "rejected") throw outcome.reason;
  return outcomes.map((outcome) => (outcome as PromiseFulfilledResult<unknown>).value) as { -readonly [K in keyof T]: Awaited<T[K]> };
}

/** POST …/allocations/plan: one page of the plan, computed from the lines it covers. */
export async function planAllocation(c: Context<AppBindings>, operationId: string, body: PlanBody) {
  const { db, principal } = c.var;
  const list: ComputedList = {
    name: "allocation-plan",
    secret: c.env.PAGINATION_SECRET,
    scope: { tenant: principal.tenantId, operationId },
    binding: { ...body, nextToken: undefined, limit: undefined },
  };
  const cursor = await openComputedListToken(list, body.nextToken);
  const after: After = cursor && { variantExternalId: String(cursor[0]), accountId: String(cursor[1]) };
  const limit = body.limit ?? MAX_PLAN_PAGE;
  const planned = plannedLines(body.variantExternalIds);
  const pageLines = (shares: Shares) =>
    "everyLine" in shares
      ? pageLinesForEveryLine(db, operationId, planned, shares.everyLine, after, limit)
      : pageLinesByEarlierOrders(db, operationId, planned, shares.earlierOperationId, after, limit);
  const { basis } = body;
  const given = sharesInBody(body);
  // What needs nothing read before it is read at once (the whole page, when the body names the shares); its failures count in this order.
  const [operation, , , shares, readAtOnce] = await inOrder([
    getVisibleOperation(db, principal, operationId),
    body.variantExternalIds && requireLines(db, operationId, body.variantExternalIds),
    basis && "operationId" in basis && getVisibleOperation(db, principal, basis.operationId),
    sharesOf(db, operationId, body, planned),
    given && pageLines(given),
  ] as const);
  if (!basis && operation.type !== "PRIVATE") {
    throw new ApiError("validation_failed", "A PUBLIC Operation lists no accounts to share among: name them in basis (an earlier Operation or weights).", {
      errors: [{ field: "body.basis", code: "required", message: "a PUBLIC Operation needs basis { operationId } or { weights }" }],
    });
  }
  const lines = readAtOnce || (await pageLines(shares));
  const caps = lines.flatMap(({ line, shares, sent }) => planLine(line, shares).slice(sent));
  const items = caps.slice(0, limit);
  const last = items.at(-1);
  return { items, nextToken: last && caps.length > limit ? await computedListToken(list, [last.variantExternalId, last.accountId]) : null };
}
