import { OPERATION_FIELDS } from "../operations/aggregate";
import { changeOf } from "../platform/data/changes";
import { ApiError } from "../platform/core/errors";
import { computedListToken, openComputedListToken, type ComputedList, type ListContext } from "../platform/data/pagination";
import { fieldChangesOf } from "./queries";
import { LINE_FIELDS } from "./line-windows";
import { operationVersions } from "./versions";
import type { DiffQuery } from "./schemas";

/** Where a nextToken resumes: the version compared to, and the last line of the page before. */
function resumedAt(cursor: (string | number)[] | null): { to: number; after: string } | null {
  if (cursor === null) return null;
  const [to, after] = cursor;
  if (cursor.length !== 2 || !Number.isSafeInteger(to) || typeof after !== "string") {
    throw new ApiError("invalid_next_token", "nextToken was not issued for this list with these filters.");
  }
  return { to: to as number, after };
}

/**
 * What differs between two versions of an Operation: its fields, its lines (added, removed, changed,
 * each with the fields that differ, a page at a time by variantExternalId) and its accounts
 * (attached, detached), each from its value at `from` to its value at `to`. The Operation's own
 * fields and accounts come with the first page.
 */
export async function diffVersions(ctx: ListContext, operationId: string, query: DiffQuery, currentVersion: () => Promise<number>) {
  const { principal } = ctx;
  const { from, limit } = query;
  const list: ComputedList = {
    name: "operation-diff",
    secret: ctx.secret,
    scope: { tenant: principal.tenantId, operationId },
    binding: { from, to: query.to ?? null },
  };
  const resumed = resumedAt(await openComputedListToken(list, query.nextToken));
  // Later pages compare to the version the first page resolved: a write since does not move `to` under them.
  const to = resumed?.to ?? query.to ?? (await currentVersion());
  const [before, after] = await operationVersions(ctx, principal.tenantId, operationId, [from, to]);
  const { changes, more } = await before.lineChangesTo(to, { after: resumed?.after ?? null, limit });
  const items = changes.flatMap(({ variantExternalId, before: then, after: now }) => {
    const record = changeOf("line", variantExternalId, then, now, LINE_FIELDS);
    if (!record) return [];
    const change = record.action === "created" ? "added" : record.action === "deleted" ? "removed" : "changed";
    return [{ variantExternalId, change, changes: fieldChangesOf(record.action[0], record.changes) } as const];
  });
  const last = changes.at(-1)?.variantExternalId;
  const page = { items, nextToken: more && last !== undefined ? await computedListToken(list, [to, last]) : null };
  const first = query.nextToken === undefined;
  const operation = first ? fieldChangesOf("u", changeOf("operation", operationId, before.row, after.row, OPERATION_FIELDS)?.changes ?? {}) : [];
  let accounts: { accountId: string; change: "attached" | "detached" }[] = [];
  if (first) {
    const [attachedBefore, attachedAfter] = await Promise.all([before.attachments(), after.attachments()]);
    accounts = [
      ...[...attachedAfter].filter((accountId) => !attachedBefore.has(accountId)).map((accountId) => ({ accountId, change: "attached" as const })),
      ...[...attachedBefore].filter((accountId) => !attachedAfter.has(accountId)).map((accountId) => ({ accountId, change: "detached" as const })),
    ].sort((a, b) => (a.accountId < b.accountId ? -1 : 1));
  }
  return { from, to, operation, accounts, items: page.items, nextToken: page.nextToken };
}
