import { eq, sql } from "drizzle-orm";
import { defineCommand, type CommandContext } from "./coordinator/protocol";
import { violatesUnique } from "../platform/data/constraint-errors";
import type { Db } from "../platform/data/database";
import { insertFromJson, runBatch, type Statement, writeGuard } from "../platform/data/sql";
import { ApiError } from "../platform/core/errors";
import { appendEvent } from "../platform/data/events";
import { idPrefixes, newId } from "../platform/core/ids";
import { foldedText, mergeLocalized, searchText, sortText } from "../platform/core/locale";
import type { Principal } from "../platform/core/principal";
import { changeStatements, recordsOf, type ChangeAuthor } from "../platform/data/changes";
import {
  operationAccounts,
  operationAccountTotals,
  operationApprovals,
  operationDailyTotals,
  operationLines,
  operationOwners,
  operations,
  operationTotals,
} from "./tables";
import { activationFailure, approvalRefusal, approvalsStillAllow, readApprovalTally, type ApprovalTally } from "./approval-gate";
import {
  bumpWithValues,
  checkIfMatch,
  commit,
  findOperation,
  loadOperation,
  loadOperationWith,
  operationChange,
  operationChanges,
  operationEvent,
  recordEveryRowDeleted,
  requireDraft,
  unchangedSince,
  type OperationRow,
} from "./aggregate";
import { nowIso, toIsoSeconds } from "../platform/core/time";
import { toOperationRepresentation } from "./queries";
import type { OperationCreate, OperationPatch, OperationStatus } from "./schemas";

// ---- create ---------------------------------------------------------------------------

/**
 * Creates the Operation in DRAFT, with its owners and its operation.created event, in one batch.
 * The one Operation write the Worker commits itself: there is no Operation (hence no Durable
 * Object to serialize on) before it, and the one race, a code taken meanwhile, is settled by the
 * (tenant, code) unique key in SQL. Answers the row as inserted, which is the row as stored.
 */
export async function createOperation(db: Db, principal: Principal, author: ChangeAuthor, body: OperationCreate): Promise<OperationRow> {
  const now = nowIso();
  const ownerIds = [...new Set(body.ownerIds ?? [])];
  const name = body.name;
  const row: OperationRow = {
    id: newId(idPrefixes.operation),
    tenantId: principal.tenantId,
    code: body.code,
    externalId: body.externalId ?? null,
    name,
    description: body.description ?? {},
    nameSearch: searchText(name),
    nameSort: sortText(name, principal.tenantDefaultLocale),
    nameFolded: foldedText(name),
    type: body.type,
    status: "DRAFT",
    startDate: body.startDate,
    endDate: body.endDate,
    activateAt: body.schedule?.activateAt ?? null,
    deactivateAt: body.schedule?.deactivateAt ?? null,
    ownerIds,
    lineCount: 0,
    accountCount: 0,
    cartCount: 0,
    orderCount: 0,
    version: 1,
    createdAt: now,
    updatedAt: now,
  };
  try {
    await runBatch(db, [
      db.insert(operations).values(row),
      ...ownerStatements(db, principal.tenantId, row.id, ownerIds, false),
      ...changeStatements(db, {
        tenantId: principal.tenantId,
        author,
        operationId: row.id,
        version: row.version,
        records: recordsOf([operationChange(null, row)]),
      }),
      appendEvent(db, {
        tenantId: principal.tenantId,
        type: "operation.created",
        actor: author.actor,
        operationId: row.id,
        data: { code: body.code, type: body.type },
      }),
    ]);
  } catch (error) {
    // Only the (tenant, code) key means a taken code; any other failure is not the caller's.
    if (violatesUnique(error, operations.tenantId, operations.code))
      throw new ApiError("duplicate_code", `Operation code ${body.code} is already used in this tenant.`);
    throw error;
  }
  return row;
}

// ---- PATCH ----------------------------------------------------------------------------

export interface PatchResult {
  operation: ReturnType<typeof toOperationRepresentation>;
  datesChangedWhileActive: boolean;
}

export const patchOperation = defineCommand(
  "operation.patch",
  async function patchOperation(ctx: CommandContext, input: { patch: OperationPatch; ifMatch?: string | null }): Promise<PatchResult> {
    const row = await loadOperation(ctx);
    checkIfMatch(row, input.ifMatch);
    const { patch } = input;
    if (patch.type !== undefined && patch.type !== row.type) requireDraft(row, "Changing type");
    const name = patch.name ? mergeLocalized(row.name, patch.name) : row.name;
    const description = patch.description ? mergeLocalized(row.description, patch.description) : row.description;
    const startDate = patch.startDate ?? row.startDate;
    const endDate = patch.endDate ?? row.endDate;
    if (startDate > endDate) {
      throw new ApiError("validation_failed", "startDate must not be after endDate.", {
        errors: [{ field: "body.startDate", code: "start_after_end", message: `startDate ${startDate} is after endDate ${endDate}` }],
      });
    }
    if (!Object.keys(name).length) {
      throw new ApiError("validation_failed", "name needs at least one locale.", {
        errors: [{ field: "body.name", code: "empty_name", message: "removing every locale of name is not allowed" }],
      });
    }
    const ownerIds = patch.ownerIds ? [...new Set(patch.ownerIds)] : row.ownerIds;
    const activateAt = patch.schedule === null ? null : patch.schedule?.activateAt === undefined ? row.activateAt : patch.schedule.activateAt;
    const deactivateAt = patch.schedule === null ? null : patch.schedule?.deactivateAt === undefined ? row.deactivateAt : patch.schedule.deactivateAt;
    if (activateAt !== null && deactivateAt !== null && deactivateAt <= activateAt) {
      throw new ApiError("validation_failed", "deactivateAt must be after activateAt.", {
        errors: [
          {
            field: "body.schedule.deactivateAt",
            code: "deactivate_not_after_activate",
            message: `deactivateAt ${deactivateAt} is not after activateAt ${activateAt}`,
          },
        ],
      });
    }
    const next = {
      code: patch.code ?? row.code,
      externalId: patch.externalId === undefined ? row.externalId : patch.externalId,
      name,
      description,
      type: patch.type ?? row.type,
      startDate,
      endDate,
      ownerIds,
      activateAt,
      deactivateAt,
    };
    const changed = (Object.keys(next) as (keyof typeof next)[]).filter((field) => JSON.stringify(next[field]) !== JSON.stringify(row[field]));
    // A merge patch that changes nothing is answered like a read: no new version, no event.
    if (!changed.length) return { operation: toOperationRepresentation(row), datesChangedWhileActive: false };
    const datesChanged = startDate !== row.startDate || endDate !== row.endDate;
    const tenantLocale = ctx.principal.tenantDefaultLocale;
    const bump = bumpWithValues(ctx, row, {
      ...next,
      nameSearch: searchText(name),
      nameSort: sortText(name, tenantLocale),
      nameFolded: foldedText(name),
    });
    // Fields that differ only in form (a name's locales in another order) change nothing either.
    const record = operationChange(row, bump.after);
    if (!record) return { operation: toOperationRepresentation(row), datesChangedWhileActive: false };
    const statements: Statement[] = [unchangedSince(row), bump.statement];
    if (changed.includes("ownerIds")) statements.push(...ownerStatements(ctx.db, ctx.principal.tenantId, row.id, ownerIds, true));
    statements.push(operationEvent(ctx, "operation.updated", { changed }), ...operationChanges(ctx, row, [record]));
    await commit(ctx, statements);
    return {
      operation: toOperationRepresentation(bump.after),
      datesChangedWhileActive: datesChanged && row.status === "ACTIVE",
    };
  },
  () => ({ what: "operation" }),
);

/** The Operation's owners as rows (`replace`: instead of those it has). */
export function ownerStatements(db: Db, tenantId: string, operationId: string, ownerIds: readonly string[], replace: boolean) {
  const statements: Statement[] = [];
  if (replace) statements.push(db.delete(operationOwners).where(eq(operationOwners.operationId, operationId)));
  statements.push(
    ...insertFromJson(
      operationOwners,
      ownerIds,
      [
        [operationOwners.tenantId, tenantId],
        [operationOwners.userId, (userId) => userId],
        [operationOwners.operationId, operationId],
      ],
      { target: [operationOwners.tenantId, operationOwners.userId, operationOwners.operationId] },
    ),
  );
  return statements;
}

// ---- status ---------------------------------------------------------------------------

const ALLOWED_TRANSITIONS: Record<OperationStatus, OperationStatus[]> = {
  DRAFT: ["ACTIVE", "INACTIVE"],
  ACTIVE: ["INACTIVE", "DRAFT"],
  INACTIVE: ["ACTIVE", "DRAFT"],
};

/** Pure: why a transition is refused, or null when it is allowed. */
function transitionRefusal(row: Pick<OperationRow, "status" | "lineCount" | "cartCount" | "orderCount">, to: OperationStatus): string | null {
  if (!ALLOWED_TRANSITIONS[row.status].includes(to)) return `${row.status} → ${to} is not an allowed transition.`;
  // Lines change only in DRAFT, so an INACTIVE Operation that never had one must not become ACTIVE either.
  if (to === "ACTIVE" && row.lineCount < 1) return `${row.status} → ACTIVE needs at least one line.`;
  if (to === "DRAFT" && row.cartCount + row.orderCount > 0) {
    return `${row.status} → DRAFT is refused while carts or orders are linked (${row.cartCount} carts, ${row.orderCount} orders).`;
  }
  return null;
}

export const changeStatus = defineCommand(
  "operation.status",
  async function changeStatus(ctx: CommandContext, input: { status: OperationStatus; ifMatch?: string | null }) {
    const activates = input.status === "ACTIVE";
    const [row, tally] = await loadOperationWith(ctx, async () => (activates ? readApprovalTally(ctx.db, ctx.principal.tenantId, ctx.operationId) : null));
    checkIfMatch(row, input.ifMatch);
    const refusal = transitionRefusal(row, input.status);
    if (refusal) throw new ApiError("invalid_transition", refusal, { from: row.status, to: input.status });
    const unapproved = tally && approvalRefusal(tally, row.version);
    if (unapproved) throw unapproved;
    const bump = bumpWithValues(ctx, row, { status: input.status });
    try {
      await commit(ctx, [
        // Re-checks in SQL what the transition depends on: same version means same status and lines.
        unchangedSince(row),
        // Decisions do not bump the version, and the setting is the tenant's: →ACTIVE re-checks the approvals itself.
        ...(activates ? [approvalsStillAllow(ctx, row)] : []),
        // Placements (carts, orders) do not bump the version (checkout/commands.ts): →DRAFT re-checks them itself.
        ...(input.status === "DRAFT"
          ? [
              writeGuard(
                sql`exists (select 1 from ${operations} where ${operations.id} = ${row.id} and ${operations.cartCount} = 0 and ${operations.orderCount} = 0)`,
              ),
            ]
          : []),
        bump.statement,
        operationEvent(ctx, "operation.status_changed", { from: row.status, to: input.status }),
        ...operationChanges(ctx, row, [operationChange(row, bump.after)]),
      ]);
    } catch (error) {
      throw activates ? await activationFailure(ctx, row, error) : error;
    }
    return toOperationRepresentation(bump.after);
  },
  () => ({ what: "status" }),
);

// ---- scheduled changes ----------------------------------------------------------------

/** The scheduled times of a schedule, each with the status it leads to. */
const SCHEDULED = [
  { field: "activateAt", to: "ACTIVE" },
  { field: "deactivateAt", to: "INACTIVE" },
] as const;

/** The earliest time still scheduled on the Operation, if any. */
export function nextScheduledTime(row: Pick<OperationRow, "activateAt" | "deactivateAt">): string | null {
  const times = SCHEDULED.map(({ field }) => row[field]).filter((time): time is string => time !== null);
  return times.length ? times.sort()[0] : null;
}

/** The scheduled change whose time has come first, with the time it was set for; null when none is due. */
function dueChange(row: OperationRow, now: string) {
  const due = SCHEDULED.filter(({ field }) => row[field] !== null && row[field]! <= now).sort((a, b) => (row[a.field]! < row[b.field]! ? -1 : 1))[0];
  return due ? { ...due, scheduledAt: row[due.field]! } : null;
}

/**
 * Makes every scheduled change whose time has come, oldest first, each in one batch that also clears
 * its time (so it never runs twice): the same transition rules and version bump as a manual change,
 * an operation.status_changed event; a change the rules refuse changes nothing but clears its time
 * and records operation.schedule_failed with the reason. Answers the Operation as left (undefined: gone).
 */
export async function runScheduledChanges(ctx: CommandContext, now = toIsoSeconds(Date.now())): Promise<OperationRow | undefined> {
  for (;;) {
    const row = await findOperation(ctx.db, ctx.principal.tenantId, ctx.operationId);
    if (!row) return undefined;
    const due = dueChange(row, now);
    if (!due) return row;
    const moves = row.status !== due.to;
    const activates = moves && due.to === "ACTIVE";
    const refusal = !moves
      ? null
      : due.to === "INACTIVE" && row.status !== "ACTIVE"
        ? `${row.status} → INACTIVE is scheduled only for an ACTIVE Operation.`
        : transitionRefusal(row, due.to);
    if (refusal !== null) {
      await abandonScheduledChange(ctx, row, due, { reason: refusal });
      continue;
    }
    const tally = activates ? await readApprovalTally(ctx.db, ctx.principal.tenantId, row.id, row.version) : null;
    // Approvals missing at the time are not waited for: the time is cleared, as for any refusal.
    if (tally && approvalRefusal(tally, row.version)) {
      await abandonScheduledChange(ctx, row, due, { reason: "approval_required", approvals: tally });
      continue;
    }
    const bump = bumpWithValues(ctx, row, { [due.field]: null, ...(moves && { status: due.to }) });
    const event = moves ? [operationEvent(ctx, "operation.status_changed", { from: row.status, to: due.to, scheduledAt: due.scheduledAt })] : [];
    await commit(ctx, [
      unchangedSince(row),
      ...(activates ? [approvalsStillAllow(ctx, row)] : []),
      bump.statement,
      ...event,
      ...operationChanges(ctx, row, [operationChange(row, bump.after)]),
    ]);
  }
}

/**
 * Gives up the scheduled change that is due first, after it kept failing (`reason` says how): its
 * time is cleared and operation.schedule_failed recorded, the status untouched. Answers the Operation as left.
 */
export async function giveUpScheduledChange(ctx: CommandContext, reason: string, now = toIsoSeconds(Date.now())): Promise<OperationRow | undefined> {
  const row = await findOperation(ctx.db, ctx.principal.tenantId, ctx.operationId);
  const due = row && dueChange(row, now);
  if (!row || !due) return row;
  return abandonScheduledChange(ctx, row, due, { reason });
}

/** Why a scheduled change was given up: the reason, and what its event adds (the approvals a refused activation had). */
interface ScheduleFailure {
  reason: string;
  approvals?: ApprovalTally;
}

async function abandonScheduledChange(
  ctx: CommandContext,
  row: OperationRow,
  due: NonNullable<ReturnType<typeof dueChange>>,
  failure: ScheduleFailure,
): Promise<OperationRow> {
  const bump = bumpWithValues(ctx, row, { [due.field]: null });
  await commit(ctx, [
    unchangedSince(row),
    bump.statement,
    operationEvent(ctx, "operation.schedule_failed", { from: row.status, to: due.to, scheduledAt: due.scheduledAt, ...failure }),
    ...operationChanges(ctx, row, [operationChange(row, bump.after)]),
  ]);
  return bump.after;
}

// ---- delete ---------------------------------------------------------------------------

/** Deletes the Operation with every row that belongs to it: lines, attachments, owners. */
export const deleteOperation = defineCommand(
  "operation.delete",
  async function deleteOperation(ctx: CommandContext, input: { ifMatch?: string | null }) {
    const row = await loadOperation(ctx);
    checkIfMatch(row, input.ifMatch);
    if (row.cartCount + row.orderCount > 0) {
      throw new ApiError(
        "operation_has_links",
        `The Operation has ${row.cartCount} linked carts and ${row.orderCount} linked orders; set its status to INACTIVE instead of deleting it.`,
        { linkedCarts: row.cartCount, linkedOrders: row.orderCount, hint: "POST /status with INACTIVE" },
      );
    }
    await commit(ctx, [
      writeGuard(
        sql`exists (select 1 from ${operations} where ${operations.id} = ${row.id} and ${operations.version} = ${row.version}
            and ${operations.cartCount} = 0 and ${operations.orderCount} = 0)`,
      ),
      // What goes with it is recorded first: the Operation, and every line and attachment as they were.
      ...operationChanges(ctx, row, [operationChange(row, null)], (setId, first) => recordEveryRowDeleted(row, setId, first)),
      ctx.db.delete(operationLines).where(eq(operationLines.operationId, row.id)),
      ctx.db.delete(operationAccounts).where(eq(operationAccounts.operationId, row.id)),
      ctx.db.delete(operationOwners).where(eq(operationOwners.operationId, row.id)),
      // Its decisions go with it; their history stays, as its own does.
      ctx.db.delete(operationApprovals).where(eq(operationApprovals.operationId, row.id)),
      // Its totals too: without orders, they count refusals and attached accounts only.
      ctx.db.delete(operationTotals).where(eq(operationTotals.operationId, row.id)),
      ctx.db.delete(operationAccountTotals).where(eq(operationAccountTotals.operationId, row.id)),
      ctx.db.delete(operationDailyTotals).where(eq(operationDailyTotals.operationId, row.id)),
      ctx.db.delete(operations).where(eq(operations.id, row.id)),
      operationEvent(ctx, "operation.deleted", { code: row.code }),
    ]);
  },
  () => ({ what: "operation", counts: { deleted: 1 } }),
);

/** The commands of this resource, for the coordinator's registry. */
export const operationCommands = [patchOperation, changeStatus, deleteOperation];
