import { useState } from "react";
import { when } from "../shared/format";
import { ActorName } from "../labels/names";
import { ListTable, type Column } from "../shared/PagedList";
import { toRefusal, type Refusal } from "../shared/session";
import { Field, ProblemView } from "../shared/ui";
import { useApprovals, useDecide, type ApprovalDecision, type Operation } from "../api/operations";
import { approvalRefusalWords, canDecide, countsText, decisionNote, standingText } from "./approvalWords";
import { t } from "../shared/i18n";

/**
 * Four eyes before ACTIVE, on an Operation's page: what activating needs and what is missing, every
 * decision (who, when, the comment, whether it still counts), and Approve / Reject of the version
 * shown. It reads the decisions again every few seconds, so a reviewer's approval in another tab or
 * on another desk shows here without a reload.
 */
export function ApprovalsPanel({ operation }: { operation: Operation }) {
  const approvals = useApprovals(operation);
  const [comment, setComment] = useState("");
  // What the last decision did, said while the version it was made on is the one shown.
  const [said, setNote] = useState<{ text: string; version: number } | null>(null);
  const note = said?.version === operation.version ? said.text : null;
  const decide = useDecide(operation, { onSuccess: () => setComment("") });
  if (approvals.error) return <ProblemView refusal={toRefusal(approvals.error)} />;
  if (!approvals.data) return null;
  const { settings, decisions, author } = approvals.data;
  // Approvals off and never used here: nothing to show.
  if (settings.required === 0 && decisions.length === 0) return null;
  const facts = { settings, decisions, author, status: operation.status, version: operation.version };
  const columns: Column<ApprovalDecision>[] = [
    {
      header: t("field.decision"),
      cell: (decision) => (
        <span className={`badge ${decision.decision === "APPROVE" ? "active" : "failed"}`}>
          {t(decision.decision === "APPROVE" ? "history.approved" : "history.rejected")}
        </span>
      ),
    },
    { header: t("field.approver"), cell: (decision) => <ActorName actor={decision.approver} /> },
    { header: t("approvals.when"), cell: (decision) => when(decision.decidedAt) },
    { header: t("field.comment"), cell: (decision) => decision.comment ?? "", wrap: true },
    { header: t("approvals.counts"), cell: (decision) => countsText(decision, settings, author) },
  ];
  const send = (choice: ApprovalDecision["decision"]) => {
    setNote(null);
    decide.mutate(
      { decision: choice, comment },
      { onSuccess: (decided) => setNote({ text: decisionNote(decided, settings, author), version: decided.version }) },
    );
  };
  return (
    <section className="card approvals" aria-labelledby="approvals-title">
      <h2 id="approvals-title">{t("approvals.title")}</h2>
      <p id="approvals-status">{standingText(facts)}</p>
      <ListTable label={t("approvals.decisions")} columns={columns} items={decisions} rowKey={(decision) => decision.id} empty={t("approvals.none")} />
      {canDecide(facts) && (
        <form
          className="decide"
          aria-label={t("approvals.decide")}
          onSubmit={(e) => {
            e.preventDefault();
            send("APPROVE");
          }}
        >
          <Field id="decision-comment" label={t("field.comment")} hint={t("approvals.onVersion", { version: operation.version })}>
            {(control) => <input {...control} value={comment} maxLength={500} onChange={(e) => setComment(e.target.value)} />}
          </Field>
          <div className="actions">
            <button type="submit" className="primary" disabled={decide.isPending}>
              {t("approvals.approve")}
            </button>
            <button type="button" className="danger" disabled={decide.isPending} onClick={() => send("REJECT")}>
              {t("approvals.reject")}
            </button>
          </div>
        </form>
      )}
      {note && (
        <p role="status" className="note">
          {note}
        </p>
      )}
      <ProblemView refusal={decide.error ? toRefusal(decide.error) : null} />
    </section>
  );
}

/** The sentence a 409 approval_required gets on the page: its figures in words. */
export function approvalRefusalText(refusal: Refusal | null): string | null {
  const figures = (refusal?.problem as { approvals?: { required: number; valid: number; rejected: number } } | undefined)?.approvals;
  if (refusal?.problem.code !== "approval_required" || !figures) return null;
  return approvalRefusalWords(figures);
}
