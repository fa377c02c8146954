import { eq, sql, type SQL } from "drizzle-orm";
import type { CommandContext } from "./coordinator/protocol";
import { ApiError } from "../platform/core/errors";
import type { Db } from "../platform/data/database";
import { writeGuard } from "../platform/data/sql";
import { changeSets, tenants } from "../platform/data/tables";
import { findOperation, type OperationRow } from "./aggregate";
import { operationApprovals, operations } from "./tables";

/*
 * Four eyes before ACTIVE: with approvals on (the tenant's `approvals_required` > 0), a change into
 * ACTIVE needs that many valid APPROVE decisions from distinct approvers, none by the author of the
 * version unless the tenant allows it, and no valid REJECT. A decision is valid while its version is
 * the Operation's: any change that bumps the version voids the decisions before it.
 *
 * The count is one SQL expression, used twice: read by the command that activates, to refuse with the
 * figures, and re-checked by a write guard in the activation's own batch, so the activation commits
 * only if the approvals of the version it bumps still count, whatever committed in between.
 */

/** Where a change into ACTIVE stands: approvals needed (0: approvals are off), valid ones that count, valid rejections. */
export interface ApprovalTally {
  required: number;
  valid: number;
  rejected: number;
}

/** The tally of the Operation's decisions on `version` as SQL over the tenant's row (its setting). */
function tallyOf(tenantId: string, operationId: string, version: SQL | number) {
  const onVersion = sql`${operationApprovals.operationId} = ${operationId} and ${operationApprovals.version} = ${version}`;
  // Who made the version: the actor of the change set that made it (an approval's set makes no version).
  // A version without a set of its own (made by a write that changed nothing, before such writes made
  // none) is its content's: the author of the latest set up to it.
  const author = sql`(select ${changeSets.actor} from ${changeSets}
    where ${changeSets.operationId} = ${operationId} and ${changeSets.version} <= ${version} and ${changeSets.tenantId} = ${tenantId}
    order by ${changeSets.version} desc, ${changeSets.id} desc limit 1)`;
  return {
    required: sql<number>`${tenants.approvalsRequired}`,
    // One decision per approver and version (the table's key): a count of decisions is one of distinct approvers.
    valid: sql<number>`(select count(*) from ${operationApprovals} where ${onVersion} and ${operationApprovals.decision} = 'APPROVE'
      and (${tenants.approvalsAllowSelf} = 1 or ${operationApprovals.approver} is not ${author}))`,
    rejected: sql<number>`(select count(*) from ${operationApprovals} where ${onVersion} and ${operationApprovals.decision} = 'REJECT')`,
  };
}

/** The tally for the Operation's current version (read alongside its load: the version comes from its row in SQL). */
export async function readApprovalTally(db: Db, tenantId: string, operationId: string, version?: number): Promise<ApprovalTally> {
  const current = sql`(select ${operations.version} from ${operations} where ${operations.id} = ${operationId})`;
  const [row] = await db
    .select(tallyOf(tenantId, operationId, version ?? current))
    .from(tenants)
    .where(eq(tenants.id, tenantId))
    .limit(1);
  return row ?? { required: 0, valid: 0, rejected: 0 };
}

/** Why the tally refuses a change into ACTIVE (null: it allows it). */
export function approvalRefusal(tally: ApprovalTally, version: number): ApiError | null {
  const { required, valid, rejected } = tally;
  if (required === 0 || (valid >= required && rejected === 0)) return null;
  const missing =
    rejected > 0
      ? `version ${version} has ${rejected} valid rejection${rejected === 1 ? "" : "s"}`
      : `version ${version} has ${valid} of the ${required} valid approval${required === 1 ? "" : "s"} needed`;
  return new ApiError(
    "approval_required",
    `Becoming ACTIVE needs ${required} approval${required === 1 ? "" : "s"} of the current version by distinct approvers (not its author, unless the tenant allows it) and no rejection; ${missing}.`,
    { approvals: { required, valid, rejected } },
  );
}

/** Guard for an activation's batch (before its bump): the approvals of the version it bumps still allow it. */
export function approvalsStillAllow(ctx: CommandContext, row: OperationRow) {
  const { tenantId } = ctx.principal;
  const tally = tallyOf(tenantId, row.id, row.version);
  return writeGuard(
    sql`not exists (select 1 from ${tenants} where ${tenants.id} = ${tenantId} and ${tally.required} > 0
      and not (${tally.valid} >= ${tally.required} and ${tally.rejected} = 0))`,
  );
}

/**
 * What a refused activation batch answers: when the Operation is still at the version it read, only
 * the approvals guard can have refused it (a decision or the setting changed in between), and it is
 * answered as the check would have; otherwise the failure as it is (version_mismatch).
 */
export async function activationFailure(ctx: CommandContext, row: OperationRow, error: unknown): Promise<unknown> {
  if (!(error instanceof ApiError) || error.problem.code !== "version_mismatch") return error;
  const [now, tally] = await Promise.all([
    findOperation(ctx.db, ctx.principal.tenantId, row.id),
    readApprovalTally(ctx.db, ctx.principal.tenantId, row.id, row.version),
  ]);
  return (now?.version === row.version && approvalRefusal(tally, row.version)) || error;
}
