import type { CapWrite } from "../api/allocations";
import { formatNumber } from "../shared/format";
import { t } from "../shared/i18n";

/**
 * Pools and caps in words, as the lines grid, a line's caps, the plan and the order check say them:
 * what is left of a pool, a refusal below what is ordered, an order asking more than is left.
 */

/** A quantity as people read a large one, in the console's language: 2,000 (2.000 in German). */
export const figure = (n: number) => formatNumber(n);

const WHOLE = /^\d+$/;

/** A cell's typed quantity as it reads: a whole number grouped (2,000), anything else as typed. */
export const figureText = (typed: string) => (WHOLE.test(typed.trim()) ? figure(Number(typed.trim())) : typed);

/**
 * A Pool cell as it reads: "2,000 · 1,640 left" (`remaining`: the server's poolRemaining while the
 * cell holds the stored pool; otherwise what the typed pool leaves over `ordered`). Empty (no pool),
 * a value that is not a whole number or one below what is ordered (its error says why) read as typed.
 */
export function poolText(typed: string, ordered: number | undefined, remaining?: number | null): string {
  const text = typed.trim();
  if (!WHOLE.test(text)) return typed;
  const pool = Number(text);
  if (ordered === undefined) return figure(pool);
  if (pool < ordered) return typed;
  const left = remaining ?? pool - ordered;
  return t("alloc.poolLeft", { pool: figure(pool), left });
}

/** A pool or a cap the server refused (409 allocation_below_ordered, one of its `lines`), or the grid found, below what was ordered. */
export interface BelowOrdered {
  field: string;
  value: number;
  ordered: number;
  accountId?: string;
}

/**
 * Why a pool or a cap cannot be that low, in the grid's words: "Pool 29 is below the 30 already
 * ordered." The line's cap per account is held to what the accounts without a cap of their own ordered.
 */
export function belowOrderedText({ field, value, ordered }: BelowOrdered, account = t("alloc.thisAccount")): string {
  return t("alloc.belowOrdered", { field, value: figure(value), ordered: figure(ordered), account });
}

/** An order's line asking more than is left (compare's allocation_exceeded issue, a placement's 409 line). */
export interface Shortfall {
  poolRemaining?: number | null;
  accountRemaining?: number | null;
  nearestValid?: number | null;
}

/**
 * What is left and what fits, in words: "Only 15 left in the pool, 5 left to this account; at most 5
 * fits" (the largest valid quantity within what is left: its bounds and pack size count), or "none fits".
 */
export function shortfallText({ poolRemaining, accountRemaining, nearestValid }: Shortfall): string {
  const parts: string[] = [];
  if (poolRemaining !== null && poolRemaining !== undefined) parts.push(t("alloc.leftInPool", { count: poolRemaining }));
  if (accountRemaining !== null && accountRemaining !== undefined)
    parts.push(t("alloc.leftToAccount", { count: accountRemaining, first: parts.length === 0 ? "yes" : "no" }));
  if (!parts.length) return nearestValid ? t("alloc.atMostFitsFirst", { count: nearestValid }) : t("alloc.noneFitsFirst");
  const fits = nearestValid ? t("alloc.atMostFits", { count: nearestValid }) : t("alloc.noneFits");
  return t("alloc.leftAndFits", { left: parts.join(", "), fits });
}

/**
 * What an account ordered of a line, as far as the console can know it: exactly when the API lists it
 * (an account with a cap of its own), or when the accounts it lists ordered all of the line
 * (`lineOrdered`), so the others ordered none; otherwise at most what those leave.
 */
export function orderedByAccount(lineOrdered: number, listed: ReadonlyMap<string, number>, accountId: string): { exact: boolean; ordered: number } {
  const known = listed.get(accountId);
  if (known !== undefined) return { exact: true, ordered: known };
  const rest = lineOrdered - [...listed.values()].reduce((sum, n) => sum + n, 0);
  return rest <= 0 ? { exact: true, ordered: 0 } : { exact: false, ordered: rest };
}

/** That figure in words: "12", or "at most 40" where it is a bound. */
export const orderedText = ({ exact, ordered }: { exact: boolean; ordered: number }) =>
  exact ? figure(ordered) : t("common.atMost", { most: figure(ordered) });

/** A cap's key: its line and its account. */
export const capKey = (cap: { variantExternalId: string; accountId: string }) => `${cap.variantExternalId}\u001f${cap.accountId}`;

/** The caps of a refused chunk its refusal names (below what was ordered, not a line, not in the directory), each with why, in words. */
export function capsRefused(refusal: { problem: object }, chunk: readonly CapWrite[], named: (accountId: string) => string): [CapWrite, string][] {
  const problem = refusal.problem as {
    lines?: (BelowOrdered & { variantExternalId: string; accountId: string })[];
    unknownAccountIds?: string[];
    unknownVariantExternalIds?: string[];
  };
  const below = new Map((problem.lines ?? []).map((line) => [capKey(line), line]));
  const outside = new Set(problem.unknownAccountIds ?? []);
  const noLine = new Set(problem.unknownVariantExternalIds ?? []);
  return chunk.flatMap((cap): [CapWrite, string][] => {
    const line = below.get(capKey(cap));
    if (line) return [[cap, belowOrderedText(line, named(cap.accountId))]];
    if (outside.has(cap.accountId)) return [[cap, t("alloc.notInDirectory", { account: named(cap.accountId) })]];
    if (noLine.has(cap.variantExternalId)) return [[cap, t("alloc.notALine", { variant: cap.variantExternalId })]];
    return [];
  });
}
