import { sql } from "drizzle-orm";
import { OPERATION_FIELDS } from "../operations/aggregate";
import { changeOf } from "../platform/data/changes";
import { bindPage, type ListContext, type ListDefinition } from "../platform/data/pagination";
import { fieldChangesOf } from "./queries";
import { LINE_FIELDS } from "./line-windows";
import { operationVersions } from "./versions";
import type { DiffQuery } from "./schemas";

/** The lines of a difference, by variantExternalId: the one order they page in. */
export const diffLineList: ListDefinition = {
  name: "operation-diff",
  sortable: { variantExternalId: sql.raw("variant_external_id") },
  id: sql.raw("variant_external_id"),
  defaultSort: "variantExternalId",
  maxLimit: 1000,
};

/**
 * What differs between two versions of an Operation: its fields, its lines (added, removed, changed,
 * each with the fields that differ, a page at a time by variantExternalId) and its accounts
 * (attached, detached), each from its value at `from` to its value at `to`. The Operation's own
 * fields and accounts come with the first page.
 */
export async function diffVersions(ctx: ListContext, operationId: string, from: number, to: number, query: DiffQuery) {
  const { principal } = ctx;
  const [before, after] = await operationVersions(ctx, principal.tenantId, operationId, [from, to]);
  const { cursor, limit, tokenAfter } = await bindPage({
    definition: diffLineList,
    secret: ctx.secret,
    scope: { tenant: principal.tenantId, operationId, from, to },
    query: { limit: query.limit, nextToken: query.nextToken },
  });
  const { changes, more } = await before.lineChangesTo(to, { after: (cursor?.[0] as string | undefined) ?? null, limit });
  const items = changes.flatMap(({ variantExternalId, before: then, after: now }) => {
    const record = changeOf("line", variantExternalId, then, now, LINE_FIELDS);
    if (!record) return [];
    const change = record.action === "created" ? "added" : record.action === "deleted" ? "removed" : "changed";
    return [{ variantExternalId, change, changes: fieldChangesOf(record.action[0], record.changes) } as const];
  });
  const last = changes.at(-1)?.variantExternalId;
  const page = { items, nextToken: more && last !== undefined ? await tokenAfter([last, last]) : null };
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
