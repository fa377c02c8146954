import { eq, sql } from "drizzle-orm";
import { findDirectoryAccounts } from "../directory/queries";
import { bumpOperation, checkIfMatch, commit, loadOperationWith, operationChanges, operationEvent, unchangedSince } from "../operations/aggregate";
import { defineCommand, type CommandContext } from "../operations/coordinator/protocol";
import { accountLineTotals, operationAccountCaps, operationLines } from "../operations/tables";
import { ApiError } from "../platform/core/errors";
import { idPrefixes, newId } from "../platform/core/ids";
import { nowIso } from "../platform/core/time";
import { changeOf, recordedFields } from "../platform/data/changes";
import { announcing, existingKeys, insertFromJson, jsonChunks, type Statement, writeGuard } from "../platform/data/sql";
import { events } from "../platform/data/tables";
import { readAllocatedLines, readCapsOf, uncappedWithin } from "./queries";
import { capKeyOf, type AccountCapInput, type LineAllocationInput } from "./schemas";

/*
 * What an order's batch writes for allocation beside its counters: an allocation.exhausted event for
 * each line whose pool the order uses up (decided in SQL after the counters moved, in the same batch).
 */

/** allocation.exhausted for every line of the order whose pool it used up: put after the lines' counters move. */
export function exhaustedEvents(
  ctx: CommandContext,
  order: { id: string; placedAt: string; lines: readonly { variantExternalId: string; quantity: number }[] },
): Statement[] {
  const l = operationLines;
  const { tenantId } = ctx.principal;
  return jsonChunks(order.lines.map((line) => [line.variantExternalId, line.quantity, newId(idPrefixes.event)])).map((chunk) =>
    announcing(
      sql`insert into ${events} (${sql.identifier(events.id.name)}, ${sql.identifier(events.tenantId.name)}, ${sql.identifier(events.type.name)}, ${sql.identifier(events.operationId.name)}, ${sql.identifier(events.actor.name)}, ${sql.identifier(events.at.name)}, ${sql.identifier(events.data.name)})
        select asked.value ->> 2, ${tenantId}, 'allocation.exhausted', ${ctx.operationId}, ${ctx.author.actor}, ${order.placedAt},
          json_object('variantExternalId', ${l.variantExternalId}, 'poolQuantity', ${l.poolQuantity}, 'orderId', ${order.id})
        from json_each(${chunk}) as asked
        cross join ${l} on ${l.operationId} = ${ctx.operationId} and ${l.variantExternalId} = asked.value ->> 0
        where ${l.poolQuantity} is not null and ${l.orderedQuantity} >= ${l.poolQuantity} and ${l.orderedQuantity} - (asked.value ->> 1) < ${l.poolQuantity}`,
      "events",
    ),
  );
}

/** A line's allocation as history records it (resource type allocation, id its variantExternalId). */
interface LineAllocationFields {
  poolQuantity: number | null;
  maxPerAccount: number | null;
}
const ALLOCATION_FIELDS = recordedFields<LineAllocationFields>(["poolQuantity", "maxPerAccount"]);
const CAP_FIELDS = recordedFields<{ accountId: string; maxQuantity: number }>(["accountId", "maxQuantity"]);

/** 422 unknown_variants unless every key is a line of the Operation. */
function requireLines(keys: readonly string[], found: ReadonlySet<string>): void {
  const unknown = [...new Set(keys)].filter((key) => !found.has(key));
  if (unknown.length) {
    throw new ApiError("unknown_variants", `${unknown.length} variants are not lines of this Operation; nothing was changed.`, {
      unknownVariantExternalIds: unknown,
    });
  }
}

/** 409 allocation_below_ordered: a pool or a cap would be below what was already ordered. */
function belowOrdered(lines: { variantExternalId: string; accountId?: string; field: string; value: number; ordered: number }[]): ApiError {
  return new ApiError("allocation_below_ordered", `${lines.length} pools or caps would be below what is already ordered; nothing was changed. See lines[].`, {
    lines,
  });
}

/**
 * PUT …/allocations: the lines' pools and caps per account, in any status (supply changes while buyers
 * order), one version. A line's omitted field keeps its value. Never below what is ordered (409), checked
 * here and again in SQL in the batch. Runs in the Operation's object, one at a time with its orders.
 */
export const setAllocations = defineCommand(
  "allocation.set",
  async function setAllocations(ctx: CommandContext, input: { entries: LineAllocationInput[]; ifMatch?: string | null; dryRun: boolean }) {
    const keys = input.entries.map((entry) => entry.variantExternalId);
    const [row, lines] = await loadOperationWith(ctx, () => readAllocatedLines(ctx.db, ctx.operationId, keys));
    checkIfMatch(row, input.ifMatch);
    requireLines(keys, new Set(lines.keys()));
    const changed: { variantExternalId: string; before: LineAllocationFields; after: LineAllocationFields }[] = [];
    const below = [];
    for (const entry of input.entries) {
      const line = lines.get(entry.variantExternalId)!;
      const before = { poolQuantity: line.poolQuantity, maxPerAccount: line.maxPerAccount };
      const after = {
        poolQuantity: entry.poolQuantity === undefined ? line.poolQuantity : entry.poolQuantity,
        maxPerAccount: entry.maxPerAccount === undefined ? line.maxPerAccount : entry.maxPerAccount,
      };
      if (after.poolQuantity !== null && after.poolQuantity < line.orderedQuantity && after.poolQuantity !== before.poolQuantity) {
        below.push({ variantExternalId: entry.variantExternalId, field: "poolQuantity", value: after.poolQuantity, ordered: line.orderedQuantity });
      }
      if (after.maxPerAccount !== null && after.maxPerAccount < line.mostOrderedUncapped && after.maxPerAccount !== before.maxPerAccount) {
        below.push({ variantExternalId: entry.variantExternalId, field: "maxPerAccount", value: after.maxPerAccount, ordered: line.mostOrderedUncapped });
      }
      if (after.poolQuantity !== before.poolQuantity || after.maxPerAccount !== before.maxPerAccount)
        changed.push({ variantExternalId: entry.variantExternalId, before, after });
    }
    if (below.length) throw belowOrdered(below);
    const answer = { updated: changed.length, unchanged: input.entries.length - changed.length };
    // A dry run, or nothing to change: no version, no event, no record.
    if (input.dryRun || !changed.length) return answer;
    const l = operationLines;
    // The list, materialized, drives: one primary-key search per line (else SQLite reads the list again for every line of the Operation).
    const statements = jsonChunks(changed.map((line) => [line.variantExternalId, line.after.poolQuantity, line.after.maxPerAccount])).flatMap((chunk) => [
      sql`with allocated as materialized (select value ->> 0 as variant, value ->> 1 as pool, value ->> 2 as cap from json_each(${chunk}))
        update ${l} set ${sql.identifier(l.poolQuantity.name)} = allocated.pool, ${sql.identifier(l.maxPerAccount.name)} = allocated.cap
        from allocated
        where ${l.operationId} = ${ctx.operationId} and ${l.variantExternalId} = allocated.variant`,
    ]);
    await commit(ctx, [
      unchangedSince(row),
      ...statements,
      // What the check above read, again where it is written: no pool below its line's orders, no cap below an account's.
      writeGuard(sql`not exists (select 1 from ${l} where ${l.operationId} = ${ctx.operationId} and ${l.poolQuantity} < ${l.orderedQuantity})`),
      writeGuard(uncappedWithin(ctx.operationId)),
      bumpOperation(ctx, row),
      operationEvent(ctx, "allocation.updated", { lines: changed.length }),
      ...operationChanges(
        ctx,
        row,
        changed.map((line) => changeOf("allocation", line.variantExternalId, line.before, line.after, ALLOCATION_FIELDS)),
      ),
    ]);
    return answer;
  },
  (input) => ({ what: "allocation", lineKeys: input.entries.map((entry) => entry.variantExternalId) }),
);

/**
 * PUT …/allocations/accounts: one account's own cap on a line (null removes it, the line's
 * maxPerAccount applies again), in any status, one version. Unknown lines 422 unknown_variants,
 * accounts outside the directory 422 unknown_accounts, a cap below what the account ordered 409.
 */
export const setAccountCaps = defineCommand(
  "allocation.accounts",
  async function setAccountCaps(ctx: CommandContext, input: { entries: AccountCapInput[]; ifMatch?: string | null; dryRun: boolean }) {
    const keys = input.entries.map((entry) => entry.variantExternalId);
    const accountIds = [...new Set(input.entries.map((entry) => entry.accountId))];
    const [row, [lines, directory, caps]] = await loadOperationWith(ctx, () =>
      Promise.all([
        existingKeys(ctx.db, operationLines.variantExternalId, [...new Set(keys)], eq(operationLines.operationId, ctx.operationId)),
        findDirectoryAccounts(ctx.db, ctx.principal.tenantId, accountIds),
        readCapsOf(ctx.db, ctx.operationId, input.entries),
      ]),
    );
    checkIfMatch(row, input.ifMatch);
    requireLines(keys, lines);
    const unknownAccountIds = accountIds.filter((accountId) => !directory.has(accountId));
    if (unknownAccountIds.length)
      throw new ApiError("unknown_accounts", `${unknownAccountIds.length} accounts are not in the directory; nothing was changed.`, { unknownAccountIds });
    const below = [];
    const set: AccountCapInput[] = [];
    const removed: AccountCapInput[] = [];
    for (const entry of input.entries) {
      const current = caps.get(capKeyOf(entry));
      if (entry.maxQuantity !== null && entry.maxQuantity < (current?.ordered ?? 0) && entry.maxQuantity !== current?.maxQuantity) {
        below.push({
          variantExternalId: entry.variantExternalId,
          accountId: entry.accountId,
          field: "maxQuantity",
          value: entry.maxQuantity,
          ordered: current!.ordered,
        });
      }
      if (entry.maxQuantity === null) {
        if (current?.maxQuantity !== null && current?.maxQuantity !== undefined) removed.push(entry);
      } else if (current?.maxQuantity !== entry.maxQuantity) set.push(entry);
    }
    if (below.length) throw belowOrdered(below);
    const answer = { set: set.length, removed: removed.length, unchanged: input.entries.length - set.length - removed.length };
    if (input.dryRun || (!set.length && !removed.length)) return answer;
    const c = operationAccountCaps;
    const at = nowIso();
    const records = [
      ...set.map((entry) => {
        const before = caps.get(capKeyOf(entry))?.maxQuantity;
        return changeOf(
          "account_cap",
          capKeyOf(entry),
          before === null || before === undefined ? null : { accountId: entry.accountId, maxQuantity: before },
          { accountId: entry.accountId, maxQuantity: entry.maxQuantity! },
          CAP_FIELDS,
        );
      }),
      ...removed.map((entry) =>
        changeOf("account_cap", capKeyOf(entry), { accountId: entry.accountId, maxQuantity: caps.get(capKeyOf(entry))!.maxQuantity! }, null, CAP_FIELDS),
      ),
    ];
    await commit(ctx, [
      unchangedSince(row),
      ...insertFromJson(
        c,
        set,
        [
          [c.operationId, ctx.operationId],
          [c.variantExternalId, (entry) => entry.variantExternalId],
          [c.accountId, (entry) => entry.accountId],
          [c.tenantId, ctx.principal.tenantId],
          [c.maxQuantity, (entry) => entry.maxQuantity],
          [c.updatedAt, at],
        ],
        { target: [c.operationId, c.variantExternalId, c.accountId], update: [c.maxQuantity, c.updatedAt] },
      ),
      ...jsonChunks(removed.map((entry) => [entry.variantExternalId, entry.accountId])).map(
        (chunk) =>
          sql`delete from ${c} where ${c.operationId} = ${ctx.operationId}
            and (${c.variantExternalId}, ${c.accountId}) in (select value ->> 0, value ->> 1 from json_each(${chunk}))`,
      ),
      // What the check above read, again where it is written: no cap below its account's orders.
      writeGuard(
        sql`not exists (select 1 from ${c} join ${accountLineTotals} as ordered on ordered.operation_id = ${c.operationId}
          and ordered.variant_external_id = ${c.variantExternalId} and ordered.account_id = ${c.accountId}
          where ${c.operationId} = ${ctx.operationId} and ${c.maxQuantity} < ordered.ordered_quantity)`,
      ),
      bumpOperation(ctx, row),
      operationEvent(ctx, "allocation.updated", { accountCaps: set.length + removed.length }),
      ...operationChanges(ctx, row, records),
    ]);
    return answer;
  },
  (_input, result) => ({ what: "allocation", counts: { ...result } }),
);

/** The commands of this folder, for the Operation's Durable Object. */
export const allocationCommands = [setAllocations, setAccountCaps];
