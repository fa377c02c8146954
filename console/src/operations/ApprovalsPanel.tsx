import { useState } from "react";
import { when } from "../shared/format";
import { ActorName } from "../labels/names";
import { ListTable, type Column } from "../shared/PagedList";
import { toRefusal, type Refusal } from "../shared/session";
import { Field, ProblemView } from "../shared/ui";
import { useApprovals, useDecide, type ApprovalDecision, type Operation } from "../api/operations";

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * Four eyes before ACTIVE, on an Operation's page: what activating needs and what is missing, every
 * decision (who, when, the comment, whether it still counts), and Approve / Reject of the version shown.
 */
export function ApprovalsPanel({ operation }: { operation: Operation }) {
  const approvals = useApprovals(operation);
  const [comment, setComment] = useState("");
  const [note, setNote] = useState<string | null>(null);
  const decide = useDecide(operation, { onSuccess: () => setComment("") });
  if (approvals.error) return <ProblemView refusal={toRefusal(approvals.error)} />;
  if (!approvals.data) return null;
  const { settings, decisions, author } = approvals.data;
  // Approvals off and never used here: nothing to show.
  if (settings.required === 0 && decisions.length === 0) return null;
  const valid = decisions.filter((decision) => decision.valid);
  const counting = valid.filter((decision) => decision.decision === "APPROVE" && (settings.allowSelfApproval || decision.approver !== author));
  const rejections = valid.filter((decision) => decision.decision === "REJECT");
  const columns: Column<ApprovalDecision>[] = [
    {
      header: "Decision",
      cell: (decision) => (
        <span className={`badge ${decision.decision === "APPROVE" ? "active" : "failed"}`}>{decision.decision === "APPROVE" ? "Approved" : "Rejected"}</span>
      ),
    },
    { header: "By", cell: (decision) => <ActorName actor={decision.approver} /> },
    { header: "When", cell: (decision) => when(decision.decidedAt) },
    { header: "Comment", cell: (decision) => decision.comment ?? "", wrap: true },
    {
      header: "Counts",
      cell: (decision) =>
        !decision.valid
          ? `No: made on version ${decision.version}, changed since`
          : decision.decision === "APPROVE" && !settings.allowSelfApproval && decision.approver === author
            ? "No: by the version's author"
            : "Yes",
    },
  ];
  const send = (choice: ApprovalDecision["decision"]) => {
    setNote(null);
    decide.mutate(
      { decision: choice, comment },
      { onSuccess: () => setNote(`${choice === "APPROVE" ? "Approved" : "Rejected"} version ${operation.version}.`) },
    );
  };
  return (
    <section className="card approvals" aria-labelledby="approvals-title">
      <h2 id="approvals-title">Approvals</h2>
      <p id="approvals-status">
        {missingText(settings.required, counting.length, rejections.length, operation, author !== null && !settings.allowSelfApproval)}
      </p>
      <ListTable label="Decisions" columns={columns} items={decisions} rowKey={(decision) => decision.id} empty="No decision yet." />
      <form
        className="decide"
        aria-label="Decide"
        onSubmit={(e) => {
          e.preventDefault();
          send("APPROVE");
        }}
      >
        <Field id="decision-comment" label="Comment" hint={`On version ${operation.version}, as shown on this page`}>
          {(control) => <input {...control} value={comment} maxLength={500} onChange={(e) => setComment(e.target.value)} />}
        </Field>
        <div className="actions">
          <button type="submit" className="primary" disabled={decide.isPending}>
            Approve
          </button>
          <button type="button" className="danger" disabled={decide.isPending} onClick={() => send("REJECT")}>
            Reject
          </button>
        </div>
      </form>
      {note && (
        <p role="status" className="note">
          {note}
        </p>
      )}
      <ProblemView refusal={decide.error ? toRefusal(decide.error) : null} />
    </section>
  );
}

/** What activating needs now, in a sentence: "Activate needs 1 more approval (1 of 2) …", or that it may go. */
function missingText(required: number, approved: number, rejected: number, operation: Operation, authorExcluded: boolean) {
  if (required === 0) return "Approvals are off: Activate needs none (these decisions are kept for the record).";
  const authorNote = authorExcluded ? " from someone other than the version's author" : "";
  if (rejected > 0)
    return `Activate is refused: version ${operation.version} has ${plural(rejected, "valid rejection")}. The rejecter approving instead, or a change (a new version), lifts it.`;
  if (approved >= required) return `Version ${operation.version} has ${approved} of ${plural(required, "approval")} needed: it can be activated.`;
  return `Activate needs ${plural(required - approved, "more approval")}${authorNote} (${approved} of ${required} on version ${operation.version}); any change voids them.`;
}

/** The sentence a 409 approval_required gets on the page: its figures in words. */
export function approvalRefusalText(refusal: Refusal | null): string | null {
  const figures = (refusal?.problem as { approvals?: { required: number; valid: number; rejected: number } } | undefined)?.approvals;
  if (refusal?.problem.code !== "approval_required" || !figures) return null;
  return figures.rejected > 0
    ? `Not activated: ${plural(figures.rejected, "valid rejection")} stand${figures.rejected === 1 ? "s" : ""}. See Approvals below.`
    : `Not activated: ${figures.valid} of ${plural(figures.required, "valid approval")} needed. See Approvals below.`;
}
