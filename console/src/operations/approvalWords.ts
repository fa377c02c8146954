import type { Schemas } from "@campaign-policy/client";
import { plural } from "../shared/format";

/** Where an Operation's approval stands, in words (pure: the panel reads, this says). */

type Decision = Pick<Schemas["ApprovalDecision"], "decision" | "approver" | "valid" | "version">;
export interface ApprovalRule {
  required: number;
  allowSelfApproval: boolean;
}
/** What the panel knows: the tenant's rule, the decisions, who made the version shown (an actor, or null), the Operation's status and version. */
export interface ApprovalFacts {
  settings: ApprovalRule;
  decisions: readonly Decision[];
  author: string | null;
  status: string;
  version: number;
}

/** Whether a decision is its version's author approving their own work, which does not count unless allowed. */
const bySelf = (decision: Decision, settings: ApprovalRule, author: string | null) =>
  decision.decision === "APPROVE" && !settings.allowSelfApproval && author !== null && decision.approver === author;

/** Whether a decision counts towards activating the version shown, in words ("Yes", "No: by the version's author"). */
export function countsText(decision: Decision, settings: ApprovalRule, author: string | null): string {
  if (!decision.valid) return `No: made on version ${decision.version}, changed since`;
  return bySelf(decision, settings, author) ? "No: by the version's author" : "Yes";
}

/** Whether Approve and Reject mean anything now: not while the Operation is ACTIVE (approvals are for activating it). */
export const canDecide = (facts: Pick<ApprovalFacts, "status">) => facts.status !== "ACTIVE";

/** What activating needs now, in a sentence: "Activate needs 1 more approval (0 of 1 on version 4) …", or that it may go, or that it is active. */
export function standingText({ settings, decisions, author, status, version }: ApprovalFacts): string {
  if (status === "ACTIVE")
    return "This Operation is ACTIVE: there is nothing to approve now. Approvals are asked before an activation: once it is deactivated or back to draft, its next version needs them again.";
  if (settings.required === 0) return "Approvals are off: Activate needs none (these decisions are kept for the record).";
  const valid = decisions.filter((decision) => decision.valid);
  const rejected = valid.filter((decision) => decision.decision === "REJECT").length;
  const approved = valid.filter((decision) => decision.decision === "APPROVE" && !bySelf(decision, settings, author)).length;
  if (rejected > 0)
    return `Activate is refused: version ${version} has ${plural(rejected, "valid rejection")}. The rejecter approving instead, or a change (a new version), lifts it.`;
  if (approved >= settings.required) return `Version ${version} has ${approved} of ${plural(settings.required, "approval")} needed: it can be activated.`;
  const authorNote = author !== null && !settings.allowSelfApproval ? " from someone other than the version's author" : "";
  return `Activate needs ${plural(settings.required - approved, "more approval")}${authorNote} (${approved} of ${settings.required} on version ${version}); any change voids them.`;
}

/** What the page says once a decision is taken: whether it counts, and why not when it does not. */
export function decisionNote(decision: Decision, settings: ApprovalRule, author: string | null): string {
  if (decision.decision === "REJECT") return `Rejected version ${decision.version}: Activate is refused until you approve instead or the Operation changes.`;
  if (bySelf(decision, settings, author))
    return `Your approval of version ${decision.version} is recorded but does not count: you made this version, and activating it needs someone else's approval.`;
  return `Approved version ${decision.version}: your approval counts.`;
}

/** The sentence a 409 approval_required gets on the page: its figures in words. */
export function approvalRefusalWords(figures: { required: number; valid: number; rejected: number }): string {
  return figures.rejected > 0
    ? `Not activated: ${plural(figures.rejected, "valid rejection")} stand${figures.rejected === 1 ? "s" : ""}. See Approvals below.`
    : `Not activated: ${figures.valid} of ${plural(figures.required, "valid approval")} needed. See Approvals below.`;
}
