import * as z from "zod";
import type { ListDefinition } from "../platform/data/pagination";
import { identifierText, listEnvelope } from "../platform/schema/fields";
import { pageQueryShape } from "../platform/schema/list-query";
import { operationApprovals } from "../operations/tables";

/** The most approvals a tenant may ask for before activation. */
export const MAX_REQUIRED_APPROVALS = 5;

const activationSettings = {
  required: z.number().int().min(0).max(MAX_REQUIRED_APPROVALS).describe("Approvals a change into ACTIVE needs; 0: off."),
  allowSelfApproval: z.boolean().describe("Whether the version's author may approve."),
};

export const approvalSettingsBody = z
  .strictObject({
    activation: z.strictObject({
      ...activationSettings,
      allowSelfApproval: activationSettings.allowSelfApproval.default(false),
    }),
  })
  .meta({ id: "ApprovalSettingsWrite", examples: [{ activation: { required: 2, allowSelfApproval: false } }] });
export type ApprovalSettings = z.output<typeof approvalSettingsBody>;

export const approvalSettingsRepresentation = z
  .object({ activation: z.object({ required: z.number().int(), allowSelfApproval: z.boolean() }) })
  .meta({ id: "ApprovalSettings", examples: [{ activation: { required: 2, allowSelfApproval: false } }] });

export const APPROVAL_DECISIONS = ["APPROVE", "REJECT"] as const;
export type ApprovalDecision = (typeof APPROVAL_DECISIONS)[number];

/** The longest comment a decision keeps (as long as a change reason). */
export const MAX_COMMENT = 500;

export const decisionBody = z
  .strictObject({
    decision: z.enum(APPROVAL_DECISIONS),
    version: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).describe("The version decided on: the current one."),
    comment: identifierText(MAX_COMMENT, { trim: true }).optional().describe("No control characters."),
  })
  .meta({ id: "ApprovalDecisionWrite", examples: [{ decision: "APPROVE", version: 7, comment: "Prices checked" }] });
export type DecisionBody = z.output<typeof decisionBody>;

export const decisionRepresentation = z
  .object({
    id: z.string(),
    operationId: z.string(),
    version: z.number().int().describe("The version decided on."),
    decision: z.enum(APPROVAL_DECISIONS),
    comment: z.string().nullable(),
    approver: z.string().describe("user:<userId> (the key's user), else key:<keyId>."),
    decidedAt: z.string(),
    valid: z.boolean().describe("Bound to the current version: it counts."),
  })
  .meta({
    id: "ApprovalDecision",
    examples: [
      {
        id: "apr_01JQ6A2B4C6D8E0F2G4H6J8K0M",
        operationId: "op_01JQ3V8K2M5N7P9R1T3W5Y7Z9B",
        version: 7,
        decision: "APPROVE",
        comment: "Prices checked",
        approver: "user:u-2002",
        decidedAt: "2026-03-01T09:30:00.000Z",
        valid: true,
      },
    ],
  });
export type DecisionRepresentation = z.output<typeof decisionRepresentation>;

export const decisionPage = listEnvelope(decisionRepresentation).meta({ id: "ApprovalDecisionPage" });

/** An Operation's decisions, newest first. */
export const decisionList: ListDefinition = {
  name: "approvals",
  sortable: { decidedAt: operationApprovals.decidedAt },
  id: operationApprovals.id,
  defaultSort: "-decidedAt",
  maxLimit: 500,
};

export const listDecisionsQuery = z.strictObject(pageQueryShape(decisionList));
export type ListDecisionsQuery = z.output<typeof listDecisionsQuery>;
