import { eq, sql } from "drizzle-orm";
import type { Db } from "../platform/data/database";
import type { ListContext } from "../platform/data/pagination";
import { tenants } from "../platform/data/tables";
import { listOperationRows } from "../operations/queries";
import { operationApprovals, operations } from "../operations/tables";
import { decisionList, type ApprovalSettings, type DecisionRepresentation, type ListDecisionsQuery } from "./schemas";

export type DecisionRow = typeof operationApprovals.$inferSelect;

/** The tenant's approval setting; approvals off until set. */
export async function getApprovalSettings(db: Db, tenantId: string): Promise<ApprovalSettings> {
  const [row] = await db
    .select({ required: tenants.approvalsRequired, allowSelfApproval: tenants.approvalsAllowSelf })
    .from(tenants)
    .where(eq(tenants.id, tenantId))
    .limit(1);
  return { activation: row ?? { required: 0, allowSelfApproval: false } };
}

export function toDecisionRepresentation(row: DecisionRow, valid: boolean): DecisionRepresentation {
  return {
    id: row.id,
    operationId: row.operationId,
    version: row.version,
    decision: row.decision,
    comment: row.comment,
    approver: row.approver,
    decidedAt: row.decidedAt,
    valid,
  };
}

/** A page of the Operation's decisions, each with whether it is on the current version (404 for an Operation not the caller's). */
export async function listDecisions(context: ListContext, operationId: string, query: ListDecisionsQuery) {
  const { db } = context;
  const current = sql`(select ${operations.version} from ${operations} where ${operations.id} = ${operationId})`;
  return listOperationRows(context, operationId, {
    definition: decisionList,
    query,
    filters: [eq(operationApprovals.operationId, operationId)],
    run: ({ where, orderBy, limit, cursorColumns }) =>
      db
        .select({ row: operationApprovals, valid: sql<number>`${operationApprovals.version} = ${current}`, ...cursorColumns })
        .from(operationApprovals)
        .where(where)
        .orderBy(...orderBy)
        .limit(limit),
  });
}
