import { and, eq, sql } from "drizzle-orm";
import type { AnySQLiteColumn, SQLiteUpdateSetSource } from "drizzle-orm/sqlite-core";
import { actorOf, type Principal } from "../platform/app";
import { isUniqueViolation, isWriteGuardFailure, runBatch, writeGuard, type Db, type Statement } from "../platform/db";
import { ApiError } from "../platform/errors";
import { appendEvent, type EventType } from "../platform/events";
import { foldedText, mergeLocalized, searchText, sortText } from "../platform/locale";
import { operationOwners, operations } from "../platform/schema";
import { nowIso } from "../platform/time";
import { findOperation, toOperationRepresentation, type OperationRow } from "./queries";
import type { OperationPatch, OperationStatus } from "./schemas";

/** Who runs a command, on which Operation: what every command handler receives. */
export interface CommandContext {
  db: Db;
  principal: Principal;
  operationId: string;
}

/** The Operation, or 404 — scoped to the caller's tenant. */
export async function loadOperation(ctx: CommandContext): Promise<OperationRow> {
  const row = await findOperation(ctx.db, ctx.principal.tenantId, ctx.operationId);
  if (!row) throw new ApiError("not_found", `Operation ${ctx.operationId} not found.`);
  return row;
}

function checkIfMatch(row: OperationRow, ifMatch: string | null | undefined): void {
  if (ifMatch === undefined || ifMatch === null || ifMatch === "*") return;
  const versions = ifMatch.split(",").map((tag) => tag.trim().replace(/^W\//, "").replace(/"/g, ""));
  if (!versions.includes(String(row.version))) {
    throw new ApiError("version_mismatch", `If-Match ${ifMatch} does not match the current version "${row.version}".`);
  }
}

export function requireDraft(row: OperationRow, what: string): void {
  if (row.status !== "DRAFT") {
    throw new ApiError("operation_not_draft", `${what} needs the Operation in DRAFT; it is ${row.status}.`);
  }
}

/** Guard: the Operation is still at the version the command read (so nothing changed it in between). */
export function unchangedSince(ctx: CommandContext, row: OperationRow) {
  return writeGuard(
    sql`exists (select 1 from ${operations} where ${operations.id} = ${row.id} and ${operations.version} = ${row.version})`,
  );
}

/** Bumps version and updatedAt; `set` adds the command's own column changes (values or SQL, e.g. a recount). */
export function bumpOperation(ctx: CommandContext, row: OperationRow, set: SQLiteUpdateSetSource<typeof operations> = {}) {
  return ctx.db
    .update(operations)
    .set({ ...set, version: row.version + 1, updatedAt: nowIso() })
    .where(and(eq(operations.id, row.id), eq(operations.version, row.version)));
}

export function operationEvent(ctx: CommandContext, type: EventType, data: Record<string, unknown>) {
  return appendEvent(ctx.db, {
    tenantId: ctx.principal.tenantId,
    type,
    actor: actorOf(ctx.principal),
    operationId: ctx.operationId,
    data,
  });
}

/** Runs a command's statements as one D1 transaction; a failed guard means a concurrent change won. */
export async function commit(ctx: CommandContext, statements: Statement[]) {
  try {
    return await runBatch(ctx.db, statements);
  } catch (error) {
    if (isWriteGuardFailure(error)) {
      throw new ApiError("version_mismatch", "The Operation changed while this command ran; read it again and retry.");
    }
    if (isUniqueViolation(error, "operations.code") || isUniqueViolation(error, "operations_code")) {
      throw new ApiError("duplicate_code", "Another Operation of this tenant already has this code.");
    }
    throw error;
  }
}

/** The counts of an Operation's own rows, kept exact by the commands that change those rows. */
export type RowCount = "lineCount" | "accountCount";

/**
 * The batch of a command that changes rows under the Operation (lines, attachments): the version
 * guard, the writes, the count recounted in SQL (rows whose `operationColumn` is this Operation)
 * with the version bump, the event, and the count read back in the same transaction — so it is
 * exact whatever happened before. Returns that count.
 */
export async function commitRowChange(
  ctx: CommandContext,
  row: OperationRow,
  change: {
    writes: Statement[];
    count: RowCount;
    operationColumn: AnySQLiteColumn;
    event: EventType;
    data: Record<string, unknown>;
  },
): Promise<number> {
  const column = change.operationColumn;
  const recount = sql`(select count(*) from ${column.table} where ${column} = ${row.id})`;
  const results = await commit(ctx, [
    unchangedSince(ctx, row),
    ...change.writes,
    bumpOperation(ctx, row, { [change.count]: recount }),
    operationEvent(ctx, change.event, change.data),
    sql`select ${operations[change.count]} as count from ${operations} where ${operations.id} = ${row.id}`,
  ]);
  return (results[results.length - 1].results[0] as { count: number }).count;
}

async function reloadRepresentation(ctx: CommandContext) {
  return toOperationRepresentation(await loadOperation(ctx));
}

// ---- PATCH ----------------------------------------------------------------------------

export interface PatchResult {
  operation: ReturnType<typeof toOperationRepresentation>;
  datesChangedWhileActive: boolean;
}

export async function patchOperation(
  ctx: CommandContext,
  input: { patch: OperationPatch; ifMatch?: string | null },
): Promise<PatchResult> {
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
  const next = {
    code: patch.code ?? row.code,
    externalId: patch.externalId === undefined ? row.externalId : patch.externalId,
    name,
    description,
    type: patch.type ?? row.type,
    startDate,
    endDate,
    ownerIds,
  };
  const changed = (Object.keys(next) as (keyof typeof next)[]).filter(
    (field) => JSON.stringify(next[field]) !== JSON.stringify(row[field]),
  );
  // A merge patch that changes nothing is answered like a read: no new version, no event.
  if (!changed.length) return { operation: toOperationRepresentation(row), datesChangedWhileActive: false };
  const datesChanged = startDate !== row.startDate || endDate !== row.endDate;
  const tenantLocale = ctx.principal.tenantDefaultLocale;
  const statements: Statement[] = [
    unchangedSince(ctx, row),
    bumpOperation(ctx, row, {
      ...next,
      nameSearch: searchText(name),
      nameSort: sortText(name, tenantLocale),
      nameFolded: foldedText(name),
    }),
  ];
  if (changed.includes("ownerIds")) statements.push(...ownerStatements(ctx.db, ctx.principal.tenantId, row.id, ownerIds, true));
  statements.push(operationEvent(ctx, "operation.updated", { changed }));
  await commit(ctx, statements);
  return {
    operation: await reloadRepresentation(ctx),
    datesChangedWhileActive: datesChanged && row.status === "ACTIVE",
  };
}

export function ownerStatements(db: Db, tenantId: string, operationId: string, ownerIds: string[], replace: boolean) {
  const statements: Statement[] = [];
  if (replace) statements.push(db.delete(operationOwners).where(eq(operationOwners.operationId, operationId)));
  if (ownerIds.length) {
    statements.push(
      sql`insert into ${operationOwners} (tenant_id, user_id, operation_id)
        select ${tenantId}, value, ${operationId} from json_each(${JSON.stringify(ownerIds)}) where true
        on conflict do nothing`,
    );
  }
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
  if (row.status === "DRAFT" && to === "ACTIVE" && row.lineCount < 1) return "DRAFT → ACTIVE needs at least one line.";
  if (to === "DRAFT" && row.cartCount + row.orderCount > 0) {
    return `${row.status} → DRAFT is refused while carts or orders are linked (${row.cartCount} carts, ${row.orderCount} orders).`;
  }
  return null;
}

export async function changeStatus(ctx: CommandContext, input: { status: OperationStatus; ifMatch?: string | null }) {
  const row = await loadOperation(ctx);
  checkIfMatch(row, input.ifMatch);
  const refusal = transitionRefusal(row, input.status);
  if (refusal) throw new ApiError("invalid_transition", refusal, { from: row.status, to: input.status });
  await commit(ctx, [
    // Re-checks in SQL what the transition depends on: same version means same status and lines.
    unchangedSince(ctx, row),
    // Links do not bump the version (carts/commands.ts): →DRAFT re-checks them itself.
    ...(input.status === "DRAFT"
      ? [writeGuard(sql`exists (select 1 from ${operations} where ${operations.id} = ${row.id} and ${operations.cartCount} = 0 and ${operations.orderCount} = 0)`)]
      : []),
    bumpOperation(ctx, row, { status: input.status }),
    operationEvent(ctx, "operation.status_changed", { from: row.status, to: input.status }),
  ]);
  return reloadRepresentation(ctx);
}

// ---- delete ---------------------------------------------------------------------------

/** Deletes the Operation with the rows that belong to it: `dependentDeletes` names them (durable-object.ts: lines, attachments). */
export async function deleteOperation(
  ctx: CommandContext,
  input: { ifMatch?: string | null },
  dependentDeletes: (db: Db, operationId: string) => Statement[],
) {
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
    ...dependentDeletes(ctx.db, row.id),
    ctx.db.delete(operationOwners).where(eq(operationOwners.operationId, row.id)),
    ctx.db.delete(operations).where(eq(operations.id, row.id)),
    operationEvent(ctx, "operation.deleted", { code: row.code }),
  ]);
}
