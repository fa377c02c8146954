import { and, eq, sql } from "drizzle-orm";
import { ApiError } from "../platform/core/errors";
import { idPrefixes, newId } from "../platform/core/ids";
import { nowIso } from "../platform/core/time";
import { changeOf, changeStatements, recordedFields, recordsOf, type Writer } from "../platform/data/changes";
import { isWriteGuardFailure } from "../platform/data/constraint-errors";
import type { Db } from "../platform/data/database";
import { runBatch, writeGuard } from "../platform/data/sql";
import { tenants } from "../platform/data/tables";
import { commit, loadOperationWith, operationEvent, unchangedSince } from "../operations/aggregate";
import { defineCommand, type CommandContext } from "../operations/coordinator/protocol";
import { operationApprovals } from "../operations/tables";
import { getApprovalSettings, toDecisionRepresentation, type DecisionRow } from "./queries";
import type { ApprovalSettings, DecisionBody, DecisionRepresentation } from "./schemas";

// ---- the tenant's setting ---------------------------------------------------------------

type ActivationSettings = ApprovalSettings["activation"];
/** The setting as history records it: resource settings, id "approvals". */
const SETTINGS_FIELDS = recordedFields<ActivationSettings>(["required", "allowSelfApproval"]);

/** A setting write that lost to another, read again this many times before 409 version_mismatch. */
const SETTINGS_ATTEMPTS = 5;

/**
 * Sets the tenant's approval setting: one batch that re-checks the setting it was computed from (so
 * its change record says what it really was), changes it, and records the change. Setting what is
 * already there writes nothing. Answers the setting as stored.
 */
export async function setApprovalSettings(writer: Writer, settings: ApprovalSettings): Promise<ApprovalSettings> {
  const { db, principal, author } = writer;
  const { tenantId } = principal;
  const next = settings.activation;
  for (let attempt = 1; ; attempt++) {
    const previous = (await getApprovalSettings(db, tenantId)).activation;
    const record = changeOf("settings", "approvals", previous, next, SETTINGS_FIELDS);
    if (!record) return settings;
    try {
      await runBatch(db, [
        settingStillIs(tenantId, previous),
        db.update(tenants).set({ approvalsRequired: next.required, approvalsAllowSelf: next.allowSelfApproval }).where(eq(tenants.id, tenantId)),
        ...changeStatements(db, { tenantId, author, records: recordsOf([record]) }),
      ]);
      return settings;
    } catch (error) {
      if (!isWriteGuardFailure(error)) throw error;
      if (attempt >= SETTINGS_ATTEMPTS) throw new ApiError("version_mismatch", "The approval setting kept changing while this request ran; retry.");
    }
  }
}

function settingStillIs(tenantId: string, setting: ActivationSettings) {
  return writeGuard(
    sql`exists (select 1 from ${tenants} where ${tenants.id} = ${tenantId}
      and ${tenants.approvalsRequired} = ${setting.required} and ${tenants.approvalsAllowSelf} = ${setting.allowSelfApproval ? 1 : 0})`,
  );
}

// ---- decisions --------------------------------------------------------------------------

/** A decision as history records it: resource approval, by its id, under its Operation (with no version of its own: it makes none). */
const DECISION_FIELDS = recordedFields<DecisionRow>(["version", "decision", "comment", "approver", "decidedAt"]);

function findDecision(db: Db, operationId: string, version: number, approver: string): Promise<DecisionRow | undefined> {
  return db
    .select()
    .from(operationApprovals)
    .where(and(eq(operationApprovals.operationId, operationId), eq(operationApprovals.version, version), eq(operationApprovals.approver, approver)))
    .limit(1)
    .then(([row]) => row);
}

/**
 * Approves or rejects the Operation as it is: bound to the version the decision names, which must be
 * its current one (409 version_mismatch), by the caller (its key's user, else its key). A second
 * decision of the same approver on the same version replaces the first, keeping its id. Runs in the
 * Operation's Durable Object like every change to it, so it never interleaves with an edit or an
 * activation; its batch re-checks the version in SQL. It makes no version: decisions are about one.
 */
export const decideOnOperation = defineCommand(
  "operation.decide",
  async function decideOnOperation(ctx: CommandContext, input: DecisionBody): Promise<DecisionRepresentation> {
    const approver = ctx.author.actor;
    const [row, earlier] = await loadOperationWith(ctx, () => findDecision(ctx.db, ctx.operationId, input.version, approver));
    if (input.version !== row.version) {
      throw new ApiError(
        "version_mismatch",
        `Version ${input.version} is not the Operation's current version ${row.version}: a decision is bound to the version it names, which must be the current one.`,
        { currentVersion: row.version },
      );
    }
    const decided: DecisionRow = {
      operationId: row.id,
      version: row.version,
      approver,
      tenantId: ctx.principal.tenantId,
      id: earlier?.id ?? newId(idPrefixes.approval),
      decision: input.decision,
      comment: input.comment ?? null,
      decidedAt: nowIso(),
    };
    await commit(ctx, [
      unchangedSince(row),
      ctx.db
        .insert(operationApprovals)
        .values(decided)
        .onConflictDoUpdate({
          target: [operationApprovals.operationId, operationApprovals.version, operationApprovals.approver],
          set: { decision: decided.decision, comment: decided.comment, decidedAt: decided.decidedAt },
        }),
      operationEvent(ctx, decided.decision === "APPROVE" ? "operation.approved" : "operation.rejected", {
        approvalId: decided.id,
        version: decided.version,
        approver,
        comment: decided.comment,
      }),
      ...changeStatements(ctx.db, {
        tenantId: ctx.principal.tenantId,
        author: ctx.author,
        operationId: row.id,
        records: recordsOf([changeOf("approval", decided.id, earlier ?? null, decided, DECISION_FIELDS)]),
      }),
    ]);
    return toDecisionRepresentation(decided, true);
  },
);

/** The commands of this resource, for the coordinator's registry. */
export const approvalCommands = [decideOnOperation];
