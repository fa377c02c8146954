// What the approval tests share: the setting, reviewers (OPERATOR keys issued with a user), decisions.
import { expect } from "vitest";
import { callRoute, collectPages, expectStatus, issueKey, readOperation, uniqueId, type Caller } from "../helpers/client";
import { routes } from "../helpers/routes";
import { setUpOperation } from "../helpers/setup";

export async function requireApprovals(op: Caller, required: number, allowSelfApproval = false) {
  return expectStatus(await callRoute(op, routes.setApprovalSettings, { body: { activation: { required, allowSelfApproval } } }), 200);
}

/** An OPERATOR key of the tenant issued with a user: the approver it decides as is that user. */
export async function reviewer(op: Caller, userId = uniqueId("reviewer")) {
  return issueKey(op.tenantId, "OPERATOR", userId);
}

/** A DRAFT Operation with lines, made by `op` (so `op` is the author of its current version). */
export async function draftOperation(op: Caller) {
  const created = await setUpOperation(op, { status: "DRAFT" });
  return readOperation(op, created.id);
}

export function decide(caller: Caller, operationId: string, decision: "APPROVE" | "REJECT", version: number, comment?: string) {
  return callRoute(caller, routes.decideOnOperation, { params: { operationId }, body: { decision, version, ...(comment !== undefined && { comment }) } });
}

export async function approve(caller: Caller, operationId: string, version: number) {
  const decided = expectStatus(await decide(caller, operationId, "APPROVE", version), 201);
  expect(decided).toMatchObject({ decision: "APPROVE", version, valid: true });
  return decided;
}

export async function decisionsOf(op: Caller, operationId: string, query: Record<string, string> = {}) {
  return (await collectPages(op, routes.listApprovalDecisions, { params: { operationId }, query })).items;
}
