import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useSession } from "./context";
import { ConfirmDialog } from "./dialogs";
import { AccountsPanel } from "./AccountsPanel";
import { CsvImport } from "./CsvImport";
import { LinesGrid } from "./LinesGrid";
import { OperationForm, nameOf, type Operation } from "./OperationsPage";
import { navigate } from "wouter/use-browser-location";
import { answer, toRefusal, type Refusal } from "./session";
import { Link, ProblemView } from "./ui";

const STATUS_BUTTONS = [
  { label: "Activate", status: "ACTIVE" },
  { label: "Deactivate", status: "INACTIVE" },
  { label: "Back to draft", status: "DRAFT" },
] as const;

/** The fields that differ between what the page showed and what the server now holds. */
function changedFields(before: Operation, after: Operation) {
  return (Object.keys(after) as (keyof Operation)[]).filter((field) => field !== "updatedAt" && JSON.stringify(before[field]) !== JSON.stringify(after[field]));
}

export function OperationPage({ operationId }: { operationId: string }) {
  const { api, session } = useSession();
  const queryClient = useQueryClient();
  const operator = session.role === "OPERATOR";
  const [editing, setEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [deactivating, setDeactivating] = useState(false);
  const [conflict, setConflict] = useState<{ refusal: Refusal; changed: string[]; latest: Operation } | null>(null);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const [linked, setLinked] = useState<Refusal | null>(null);
  const query = useQuery({
    queryKey: ["operation", operationId],
    queryFn: async () => (await answer(api.GET("/v1/operations/{operationId}", { params: { path: { operationId } } }))).data,
  });
  const operation = query.data;
  const refresh = (fresh: Operation) => {
    queryClient.setQueryData(["operation", operationId], fresh);
    queryClient.invalidateQueries({ queryKey: ["operations"] });
  };
  /** A 412 fetches the server's version, says which fields changed, and offers to reload. */
  const onRefused = async (error: unknown) => {
    const refused = toRefusal(error);
    if (refused.status === 412 && operation) {
      const latest = (await answer(api.GET("/v1/operations/{operationId}", { params: { path: { operationId } } }))).data;
      setConflict({ refusal: refused, changed: changedFields(operation, latest), latest });
    } else setRefusal(refused);
  };
  const changeStatus = useMutation({
    mutationFn: async (status: Operation["status"]) =>
      (
        await answer(
          api.POST("/v1/operations/{operationId}/status", {
            params: { path: { operationId }, header: { "If-Match": `"${operation!.version}"` } },
            body: { status },
          }),
        )
      ).data,
    onMutate: () => {
      setRefusal(null);
      setConflict(null);
      setLinked(null);
    },
    onSuccess: refresh,
    onError: onRefused,
  });
  const remove = useMutation({
    mutationFn: async () =>
      answer(api.DELETE("/v1/operations/{operationId}", { params: { path: { operationId }, header: { "If-Match": `"${operation!.version}"` } } })),
    onMutate: () => {
      setRefusal(null);
      setConflict(null);
      setLinked(null);
    },
    onSuccess: () => {
      queryClient.invalidateQueries({ queryKey: ["operations"] });
      navigate("/console/operations");
    },
    onError: (error) => {
      const refused = toRefusal(error);
      if (refused.problem.code === "operation_has_links") setLinked(refused);
      else void onRefused(error);
    },
  });

  if (query.error) return <ProblemView refusal={toRefusal(query.error)} />;
  if (!operation) return <p className="muted">Loading…</p>;
  const readOnlyReason = !operator
    ? "Read-only: an ACCOUNT key reads lines; only OPERATOR keys change them."
    : operation.status !== "DRAFT"
      ? `Read-only: this Operation is ${operation.status}; lines change only while it is DRAFT (Back to draft to edit).`
      : null;
  return (
    <section>
      <p className="crumbs">
        <Link to="/console/operations">Operations</Link> /
      </p>
      <div className="title-row">
        <h1>{operation.code}</h1>
        <span className={`badge ${operation.status.toLowerCase()}`}>{operation.status}</span>
        <span className="muted">
          {nameOf(operation)} · {operation.type} · {operation.startDate.slice(0, 10)} → {operation.endDate.slice(0, 10)} · {operation.lineCount} lines · version{" "}
          {operation.version}
        </span>
      </div>
      {operator && (
        <div className="toolbar" role="toolbar" aria-label="Operation">
          {STATUS_BUTTONS.map((button) => (
            <button
              key={button.status}
              type="button"
              disabled={operation.status === button.status || changeStatus.isPending}
              onClick={() => (button.status === "INACTIVE" ? setDeactivating(true) : changeStatus.mutate(button.status))}
            >
              {button.label}
            </button>
          ))}
          <button type="button" onClick={() => setEditing((open) => !open)} aria-expanded={editing}>
            Edit details
          </button>
          <button type="button" className="danger" onClick={() => setDeleting(true)}>
            Delete
          </button>
        </div>
      )}
      {deleting && (
        <ConfirmDialog
          title={`Delete ${operation.code}?`}
          confirm="Delete"
          onConfirm={() => {
            setDeleting(false);
            remove.mutate();
          }}
          onClose={() => setDeleting(false)}
        >
          <p>This cannot be undone.</p>
        </ConfirmDialog>
      )}
      {deactivating && (
        <ConfirmDialog
          title={`Deactivate ${operation.code}?`}
          confirm="Deactivate"
          onConfirm={() => {
            setDeactivating(false);
            changeStatus.mutate("INACTIVE");
          }}
          onClose={() => setDeactivating(false)}
        >
          <p>
            {operation.status === "DRAFT"
              ? "It is still a draft and has never been active: it becomes INACTIVE, and its lines can no longer be edited until it is back to draft."
              : "Accounts can no longer order from it until it is activated again."}
          </p>
        </ConfirmDialog>
      )}
      {editing && (
        <OperationForm
          operation={operation}
          onDone={(saved) => {
            setEditing(false);
            if (saved) refresh(saved);
          }}
        />
      )}
      {conflict && (
        <ProblemView refusal={conflict.refusal}>
          <p>Changed since you loaded it: {conflict.changed.join(", ") || "nothing visible (only its version)"}.</p>
          <button
            type="button"
            onClick={() => {
              refresh(conflict.latest);
              setConflict(null);
            }}
          >
            Reload
          </button>
        </ProblemView>
      )}
      {linked && (
        <ProblemView refusal={linked}>
          <p>It cannot be deleted while things refer to it; deactivating it keeps them and stops its use.</p>
          <button type="button" onClick={() => changeStatus.mutate("INACTIVE")}>
            Set INACTIVE instead
          </button>
        </ProblemView>
      )}
      <ProblemView refusal={refusal} />
      {operator && operation.status === "DRAFT" && (
        <LinesImport operationId={operationId} onApplied={() => queryClient.invalidateQueries({ queryKey: ["operation", operationId] })} />
      )}
      <LinesGrid
        operation={operation}
        readOnlyReason={readOnlyReason}
        onSaved={() => queryClient.invalidateQueries({ queryKey: ["operation", operationId] })}
      />
      {operation.type === "PRIVATE" && <AccountsPanel operation={operation} />}
    </section>
  );
}

type UpsertResult = { created: number; updated: number; lineCount: number };

function LinesImport({ operationId, onApplied }: { operationId: string; onApplied: () => void }) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  return (
    <CsvImport
      columns="variantExternalId, variantName, minQuantity, maxQuantity, recommendedQuantity, quantityIncrement"
      send={async (text, dryRun) =>
        (
          await answer(
            api.PUT("/v1/operations/{operationId}/lines", {
              params: { path: { operationId }, query: { dryRun } },
              body: text as never,
              bodySerializer: (body: unknown) => body as string,
              headers: { "content-type": "text/csv" },
            }),
          )
        ).data as UpsertResult
      }
      describe={(result) => `${result.created} created, ${result.updated} updated, ${result.lineCount} lines after import`}
      onApplied={() => {
        queryClient.invalidateQueries({ queryKey: ["lines", operationId] });
        onApplied();
      }}
    />
  );
}
