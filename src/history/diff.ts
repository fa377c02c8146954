import { sql } from "drizzle-orm";
import { OPERATION_FIELDS, LINE_FIELD_NAMES } from "../operations/aggregate";
import { changeOf, recordedFields } from "../platform/data/changes";
import { pageInMemory, type ListContext, type ListDefinition } from "../platform/data/pagination";
import { fieldChangesOf } from "./queries";
import { operationVersions, type LineAtVersion } from "./versions";
import type { DiffQuery } from "./schemas";

const LINE_FIELDS = recordedFields<LineAtVersion>(LINE_FIELD_NAMES);

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
  const { db, principal } = ctx;
  const [before, after] = await operationVersions(db, principal.tenantId, operationId, [from, to]);
  const [linesBefore, linesAfter] = await Promise.all([before.lines(), after.lines()]);
  const items = [...new Set([...linesBefore.keys(), ...linesAfter.keys()])].flatMap((variantExternalId) => {
    const record = changeOf("line", variantExternalId, linesBefore.get(variantExternalId) ?? null, linesAfter.get(variantExternalId) ?? null, LINE_FIELDS);
    if (!record) return [];
    const change = record.action === "created" ? "added" : record.action === "deleted" ? "removed" : "changed";
    return [{ variantExternalId, change, changes: fieldChangesOf(record.action[0], record.changes) } as const];
  });
  const page = await pageInMemory({
    definition: diffLineList,
    secret: ctx.secret,
    scope: { tenant: principal.tenantId, operationId, from, to },
    query: { limit: query.limit, nextToken: query.nextToken },
    items,
    valueOf: (item) => item.variantExternalId,
    idOf: (item) => item.variantExternalId,
  });
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
