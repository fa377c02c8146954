import type { Schemas } from "@campaign-policy/client";
import { t } from "../shared/i18n";

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
  if (!decision.valid) return t("approvals.noChanged", { version: decision.version });
  return t(bySelf(decision, settings, author) ? "approvals.noAuthor" : "approvals.yes");
}

/** Whether Approve and Reject mean anything now: not while the Operation is ACTIVE (approvals are for activating it). */
export const canDecide = (facts: Pick<ApprovalFacts, "status">) => facts.status !== "ACTIVE";

/** What activating needs now, in a sentence: "Activate needs 1 more approval (0 of 1 on version 4) …", or that it may go, or that it is active. */
export function standingText({ settings, decisions, author, status, version }: ApprovalFacts): string {
  if (status === "ACTIVE") return t("approvals.active");
  if (settings.required === 0) return t("approvals.off");
  const valid = decisions.filter((decision) => decision.valid);
  const rejected = valid.filter((decision) => decision.decision === "REJECT").length;
  const approved = valid.filter((decision) => decision.decision === "APPROVE" && !bySelf(decision, settings, author)).length;
  if (rejected > 0) return t("approvals.refused", { version, count: rejected });
  if (approved >= settings.required) return t("approvals.enough", { version, approved, required: settings.required });
  const others = author !== null && !settings.allowSelfApproval ? "yes" : "no";
  return t("approvals.needs", { count: settings.required - approved, others, approved, required: settings.required, version });
}

/** What the page says once a decision is taken: whether it counts, and why not when it does not. */
export function decisionNote(decision: Decision, settings: ApprovalRule, author: string | null): string {
  if (decision.decision === "REJECT") return t("approvals.rejectedNote", { version: decision.version });
  if (bySelf(decision, settings, author)) return t("approvals.selfNote", { version: decision.version });
  return t("approvals.approvedNote", { version: decision.version });
}

/** The sentence a 409 approval_required gets on the page: its figures in words. */
export function approvalRefusalWords(figures: { required: number; valid: number; rejected: number }): string {
  return figures.rejected > 0
    ? t("approvals.notActivatedRejected", { count: figures.rejected })
    : t("approvals.notActivated", { valid: figures.valid, required: figures.required });
}
