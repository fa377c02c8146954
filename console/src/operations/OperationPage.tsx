import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { navigate } from "wouter/use-browser-location";
import { useSession } from "../shared/context";
import { CsvImport } from "../shared/CsvImport";
import { ConfirmDialog } from "../shared/dialogs";
import { queryKeys } from "../shared/queryKeys";
import { toRefusal, type Refusal } from "../shared/session";
import { Link, ProblemView } from "../shared/ui";
import { AccountsPanel } from "./AccountsPanel";
import { ApprovalsPanel, approvalRefusalText } from "./ApprovalsPanel";
import {
  fetchOperation,
  importLinesCsv,
  nameOf,
  useChangeStatus,
  useDeleteOperation,
  useOperation,
  useOperationRefresh,
  type Operation,
} from "../api/operations";
import { lineAccess } from "./lineAccess";
import { LinesGrid } from "./LinesGrid";
import { LiveBar } from "./live/LiveBar";
import { OperationForm } from "./OperationForm";
import { day } from "../shared/format";
import { currentLanguage, t } from "../shared/i18n";

const STATUS_BUTTONS = [
  { label: "ops.activate", status: "ACTIVE" },
  { label: "ops.deactivate", status: "INACTIVE" },
  { label: "ops.backToDraft", status: "DRAFT" },
] as const;

/** The fields that differ between what the page showed and what the server now holds. */
/** An Operation's crumbs, code, status and facts, and its views (lines, orders, totals, history) as links. */
export function OperationHeader({ operation, view }: { operation: Operation; view: "lines" | "orders" | "totals" | "history" }) {
  const { session } = useSession();
  const operator = session.role === "OPERATOR";
  const base = `/console/operations/${operation.id}`;
  return (
    <>
      <p className="crumbs">
        <Link to="/console/operations">{t("app.nav.operations")}</Link> /
      </p>
      <div className="title-row">
        <h1>{operation.code}</h1>
        <span className={`badge ${operation.status.toLowerCase()}`}>{operation.status}</span>
        <span className="muted">
          {nameOf(operation)} · {operation.type} · {day(operation.startDate)} → {day(operation.endDate)} ·{" "}
          {t("ops.facts", { lines: operation.lineCount, version: operation.version })}
        </span>
      </div>
      <LiveBar operation={operation} />
      {/* Totals and History are for OPERATOR keys (the API refuses them to an ACCOUNT key, which sees its own orders). */}
      <nav className="views" aria-label={t("ops.views")}>
        <Link to={base} current={view === "lines"}>
          {t("ops.lines")}
        </Link>
        <Link to={`${base}/orders`} current={view === "orders"}>
          {t("ops.orders")}
        </Link>
        {operator && (
          <>
            <Link to={`${base}/totals`} current={view === "totals"}>
              {t("ops.totals")}
            </Link>
            <Link to={`${base}/history`} current={view === "history"}>
              {t("ops.history")}
            </Link>
          </>
        )}
      </nav>
    </>
  );
}

function changedFields(before: Operation, after: Operation) {
  return (Object.keys(after) as (keyof Operation)[]).filter((field) => field !== "updatedAt" && JSON.stringify(before[field]) !== JSON.stringify(after[field]));
}

export function OperationPage({ operationId }: { operationId: string }) {
  const { api, session } = useSession();
  const operator = session.role === "OPERATOR";
  const [editing, setEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [deactivating, setDeactivating] = useState(false);
  const [conflict, setConflict] = useState<{ refusal: Refusal; changed: string[]; latest: Operation } | null>(null);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const [linked, setLinked] = useState<Refusal | null>(null);
  const query = useOperation(operationId);
  const operation = query.data;
  const queryClient = useQueryClient();
  const show = (fresh: Operation) => queryClient.setQueryData(queryKeys.operation(operationId), fresh);
  const refreshHeader = useOperationRefresh(operationId);
  /** A 412 fetches the server's version, says which fields changed, and offers to reload. */
  const onRefused = async (error: unknown) => {
    const refused = toRefusal(error);
    if (refused.status === 412 && operation) {
      const latest = await fetchOperation(api, operationId);
      setConflict({ refusal: refused, changed: changedFields(operation, latest), latest });
    } else setRefusal(refused);
  };
  const clearRefusals = () => {
    setRefusal(null);
    setConflict(null);
    setLinked(null);
  };
  const changeStatus = useChangeStatus(operation, { onMutate: clearRefusals, onError: onRefused });
  const remove = useDeleteOperation(operation, {
    onMutate: clearRefusals,
    onSuccess: () => navigate("/console/operations"),
    onError: (error) => {
      const refused = toRefusal(error);
      if (refused.problem.code === "operation_has_links") setLinked(refused);
      else void onRefused(error);
    },
  });

  if (query.error) return <ProblemView refusal={toRefusal(query.error)} />;
  if (!operation) return <p className="muted">{t("common.loading")}</p>;
  return (
    <section>
      <OperationHeader operation={operation} view="lines" />
      {operator && (
        <div className="toolbar" role="toolbar" aria-label={t("ops.operation")}>
          {STATUS_BUTTONS.map((button) => (
            <button
              key={button.status}
              type="button"
              disabled={operation.status === button.status || changeStatus.isPending}
              onClick={() => (button.status === "INACTIVE" ? setDeactivating(true) : changeStatus.mutate(button.status))}
            >
              {t(button.label)}
            </button>
          ))}
          <button type="button" onClick={() => setEditing((open) => !open)} aria-expanded={editing}>
            {t("ops.editDetails")}
          </button>
          <button type="button" className="danger" onClick={() => setDeleting(true)}>
            {t("common.delete")}
          </button>
        </div>
      )}
      {deleting && (
        <ConfirmDialog
          title={t("ops.deleteTitle", { code: operation.code })}
          confirm={t("common.delete")}
          onConfirm={() => {
            setDeleting(false);
            remove.mutate();
          }}
          onClose={() => setDeleting(false)}
        >
          <p>{t("common.cannotUndo")}</p>
        </ConfirmDialog>
      )}
      {deactivating && (
        <ConfirmDialog
          title={t("ops.deactivateTitle", { code: operation.code })}
          confirm={t("ops.deactivate")}
          onConfirm={() => {
            setDeactivating(false);
            changeStatus.mutate("INACTIVE");
          }}
          onClose={() => setDeactivating(false)}
        >
          <p>{t(operation.status === "DRAFT" ? "ops.deactivateDraft" : "ops.deactivateActive")}</p>
        </ConfirmDialog>
      )}
      {editing && <OperationForm operation={operation} onDone={() => setEditing(false)} />}
      {conflict && (
        <ProblemView refusal={conflict.refusal}>
          <p>{t("ops.changedSince", { fields: conflict.changed.join(", ") || t("ops.nothingVisible") })}</p>
          <button
            type="button"
            onClick={() => {
              show(conflict.latest);
              setConflict(null);
            }}
          >
            {t("ops.reload")}
          </button>
        </ProblemView>
      )}
      {linked && (
        <ProblemView refusal={linked}>
          <p>{t("ops.hasLinks")}</p>
          <button type="button" onClick={() => changeStatus.mutate("INACTIVE")}>
            {t("ops.setInactive")}
          </button>
        </ProblemView>
      )}
      <ProblemView refusal={refusal}>{approvalRefusalText(refusal) && <p>{approvalRefusalText(refusal)}</p>}</ProblemView>
      {operator && <ApprovalsPanel operation={operation} />}
      {operator && operation.status === "DRAFT" && <LinesImport operationId={operationId} />}
      <LinesGrid operation={operation} access={lineAccess(operation.status, operator)} onSaved={refreshHeader} />
      {operation.type === "PRIVATE" && <AccountsPanel operation={operation} />}
    </section>
  );
}

function LinesImport({ operationId }: { operationId: string }) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const refreshHeader = useOperationRefresh(operationId);
  return (
    <CsvImport
      columns="variantExternalId, variantName, minQuantity, maxQuantity, recommendedQuantity, quantityIncrement"
      send={(text, dryRun) => importLinesCsv(api, operationId, text, dryRun, currentLanguage())}
      describe={(result) => t("ops.importOutcome", { created: result.created, updated: result.updated, lines: result.lineCount })}
      onApplied={() => {
        void queryClient.invalidateQueries({ queryKey: queryKeys.lines.of(operationId) });
        void refreshHeader();
      }}
    />
  );
}
