import { eq, sql } from "drizzle-orm";
import { defineCommand, type CommandContext } from "../platform/commands";
import { insertFromJson, jsonField, writeGuard, type Db, type Statement } from "../platform/db";
import { ApiError } from "../platform/errors";
import { foldedText, mergeLocalized, searchText, sortText } from "../platform/locale";
import { operationAccounts, operationLines, operationOwners, operations } from "../platform/tables";
import { bumpOperation, bumpWithValues, checkIfMatch, commit, loadOperation, operationEvent, requireDraft, unchangedSince, type OperationRow } from "../write/operation";
import { toOperationRepresentation } from "./queries";
import type { OperationPatch, OperationStatus } from "./schemas";

// ---- PATCH ----------------------------------------------------------------------------

export interface PatchResult {
  operation: ReturnType<typeof toOperationRepresentation>;
  datesChangedWhileActive: boolean;
}

export const patchOperation = defineCommand("operation.patch", async (
  ctx: CommandContext,
  input: { patch: OperationPatch; ifMatch?: string | null },
): Promise<PatchResult> => {
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
  const bump = bumpWithValues(ctx, row, {
    ...next,
    nameSearch: searchText(name),
    nameSort: sortText(name, tenantLocale),
    nameFolded: foldedText(name),
  });
  const statements: Statement[] = [unchangedSince(row), bump.statement];
  if (changed.includes("ownerIds")) statements.push(...ownerStatements(ctx.db, ctx.principal.tenantId, row.id, ownerIds, true));
  statements.push(operationEvent(ctx, "operation.updated", { changed }));
  await commit(ctx, statements);
  return {
    operation: toOperationRepresentation(bump.after),
    datesChangedWhileActive: datesChanged && row.status === "ACTIVE",
  };
});

export function ownerStatements(db: Db, tenantId: string, operationId: string, ownerIds: string[], replace: boolean) {
  const statements: Statement[] = [];
  if (replace) statements.push(db.delete(operationOwners).where(eq(operationOwners.operationId, operationId)));
  if (ownerIds.length) {
    statements.push(
      insertFromJson(
        operationOwners,
        JSON.stringify(ownerIds),
        [
          [operationOwners.tenantId, tenantId],
          [operationOwners.userId, jsonField()],
          [operationOwners.operationId, operationId],
        ],
        { target: [operationOwners.tenantId, operationOwners.userId, operationOwners.operationId] },
      ),
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
  // Lines change only in DRAFT, so an INACTIVE Operation that never had one must not become ACTIVE either.
  if (to === "ACTIVE" && row.lineCount < 1) return `${row.status} → ACTIVE needs at least one line.`;
  if (to === "DRAFT" && row.cartCount + row.orderCount > 0) {
    return `${row.status} → DRAFT is refused while carts or orders are linked (${row.cartCount} carts, ${row.orderCount} orders).`;
  }
  return null;
}

export const changeStatus = defineCommand("operation.status", async (ctx: CommandContext, input: { status: OperationStatus; ifMatch?: string | null }) => {
  const row = await loadOperation(ctx);
  checkIfMatch(row, input.ifMatch);
  const refusal = transitionRefusal(row, input.status);
  if (refusal) throw new ApiError("invalid_transition", refusal, { from: row.status, to: input.status });
  const bump = bumpWithValues(ctx, row, { status: input.status });
  await commit(ctx, [
    // Re-checks in SQL what the transition depends on: same version means same status and lines.
    unchangedSince(row),
    // Placements (carts, orders) do not bump the version (checkout/commands.ts): →DRAFT re-checks them itself.
    ...(input.status === "DRAFT"
      ? [writeGuard(sql`exists (select 1 from ${operations} where ${operations.id} = ${row.id} and ${operations.cartCount} = 0 and ${operations.orderCount} = 0)`)]
      : []),
    bump.statement,
    operationEvent(ctx, "operation.status_changed", { from: row.status, to: input.status }),
  ]);
  return toOperationRepresentation(bump.after);
});

// ---- delete ---------------------------------------------------------------------------

/** Deletes the Operation with every row that belongs to it: lines, attachments, owners. */
export const deleteOperation = defineCommand("operation.delete", async (ctx: CommandContext, input: { ifMatch?: string | null }) => {
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
    ctx.db.delete(operationLines).where(eq(operationLines.operationId, row.id)),
    ctx.db.delete(operationAccounts).where(eq(operationAccounts.operationId, row.id)),
    ctx.db.delete(operationOwners).where(eq(operationOwners.operationId, row.id)),
    ctx.db.delete(operations).where(eq(operations.id, row.id)),
    operationEvent(ctx, "operation.deleted", { code: row.code }),
  ]);
});

/** The commands of this resource, for the coordinator's registry. */
export const operationCommands = [patchOperation, changeStatus, deleteOperation];
