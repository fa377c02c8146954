import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState, type FormEvent } from "react";
import "./allocation.css";
import { fetchAccountCaps, fetchPlan, type CapCounts, type PlanRequest, type PlannedCap } from "../api/allocations";
import { useAccountNames } from "../api/directory";
import { fetchLinesOf, nameOf, useOperationByCode, type Operation } from "../api/operations";
import { capKey, figure, orderedByAccount, orderedText } from "../labels/allocation";
import { accountName } from "../labels/people";
import { useSession } from "../shared/context";
import { Dialog } from "../shared/dialogs";
import { ChunkRefused, describePartialSave } from "../shared/grid/models/chunkedSave";
import { ListTable } from "../shared/PagedList";
import { queryKeys } from "../shared/queryKeys";
import { toRefusal, type Refusal } from "../shared/session";
import { Field, FirstOf, ProblemView, SearchFilter, StatusNote, useDebounced } from "../shared/ui";
import { saveCaps } from "./capsSave";
import { t } from "../shared/i18n";

/** The plan's methods, as the API names them and in words. */
const METHODS = [
  ["equal", "plan.equal"],
  ["proportional", "plan.proportional"],
] as const;
/** What the progress bar says it is doing, by step. */
const STEPS = { Planning: "plan.planning", Checking: "plan.checking", Saving: "plan.saving" } as const;

/** Rows of the preview shown at once (the filter finds the others). */
const PREVIEW_ROWS = 100;

/** A planned cap as the preview shows it: the account's cap now (its own, if any) and what it ordered of the line. */
interface PreviewRow extends PlannedCap {
  now: number | null;
  ordered: { exact: boolean; ordered: number };
}

interface Progress {
  done: number;
  total: number;
  what: "Planning" | "Checking" | "Saving";
}

/** Reads the whole plan, then what the console can know of each account's cap and orders on its lines. */
async function previewOf(api: Parameters<typeof fetchPlan>[0], operation: Operation, request: PlanRequest, onPage: (caps: number) => void) {
  const plan = await fetchPlan(api, operation.id, request, onPage);
  const variants = [...new Set(plan.map((cap) => cap.variantExternalId))];
  const [listed, lines] = await Promise.all([fetchAccountCaps(api, operation.id, variants), fetchLinesOf(api, operation.id, variants)]);
  const lineOrdered = new Map(lines.map((line) => [line.variantExternalId, line.orderedQuantity ?? 0]));
  const byLine = new Map<string, Map<string, number>>();
  for (const cap of listed) byLine.set(cap.variantExternalId, (byLine.get(cap.variantExternalId) ?? new Map()).set(cap.accountId, cap.orderedQuantity));
  const now = new Map(listed.map((cap) => [capKey(cap), cap.maxQuantity]));
  return plan.map(
    (cap): PreviewRow => ({
      ...cap,
      now: now.get(capKey(cap)) ?? null,
      ordered: orderedByAccount(lineOrdered.get(cap.variantExternalId) ?? 0, byLine.get(cap.variantExternalId) ?? new Map(), cap.accountId),
    }),
  );
}

/**
 * `Plan allocation`: the caps POST …/allocations/plan proposes (equal shares among the attached
 * accounts or those of an earlier Operation, or in proportion to what each ordered there), previewed
 * as a table before anything is saved; `Save` sends them as PUT …/allocations/accounts in the API's
 * chunks (every chunk a dry run first), showing how far it is.
 */
export function PlanAllocation({ operation, onClose }: { operation: Operation; onClose: () => void }) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const attachedOffered = operation.type === "PRIVATE";
  const [method, setMethod] = useState<"equal" | "proportional">("equal");
  const [among, setAmong] = useState<"attached" | "earlier">(attachedOffered ? "attached" : "earlier");
  const [code, setCode] = useState("");
  const [variants, setVariants] = useState("");
  const [preview, setPreview] = useState<PreviewRow[] | null>(null);
  const [progress, setProgress] = useState<Progress | null>(null);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const [refused, setRefused] = useState<string[]>([]);
  const [outcome, setOutcome] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [filter, setFilter] = useState("");
  const earlier = useOperationByCode(useDebounced(code.trim(), 300));
  const byEarlier = among === "earlier" || method === "proportional";
  const busy = progress !== null;
  // Each step's content replaces the last: the focus goes to its start (the form's method, the preview's summary, Close), never to the page behind.
  const step = saved ? "saved" : preview ? "preview" : "form";
  const stepStart = useRef<HTMLElement | null>(null);
  const startHere = (element: HTMLElement | null) => {
    if (element) stepStart.current = element;
  };
  // biome-ignore lint/correctness/useExhaustiveDependencies(step): a new step is what moves the focus.
  useEffect(() => stepStart.current?.focus(), [step]);

  const shown = (preview ?? [])
    .filter((row) => !filter || `${row.variantExternalId} ${row.accountId}`.toLowerCase().includes(filter.toLowerCase()))
    .slice(0, PREVIEW_ROWS);
  const names = useAccountNames(shown.map((row) => row.accountId));
  const named = (accountId: string) => accountName(accountId, names);

  const plan = async (event: FormEvent) => {
    event.preventDefault();
    setRefusal(null);
    setOutcome(null);
    if (byEarlier && !earlier.data) return setOutcome(code.trim() ? t("changes.noCode", { code: code.trim() }) : t("plan.typeCode"));
    const lines = variants
      .split(",")
      .map((variant) => variant.trim())
      .filter(Boolean);
    const request: PlanRequest = {
      method,
      ...(byEarlier && { basis: { operationId: earlier.data!.id } }),
      ...(lines.length && { variantExternalIds: lines }),
    };
    setProgress({ done: 0, total: 0, what: "Planning" });
    try {
      setPreview(await previewOf(api, operation, request, (done) => setProgress({ done, total: 0, what: "Planning" })));
    } catch (error) {
      setRefusal(toRefusal(error));
    } finally {
      setProgress(null);
    }
  };

  const save = async () => {
    if (!preview) return;
    setRefusal(null);
    setRefused([]);
    setOutcome(null);
    const messages: string[] = [];
    const caps = preview.map(({ variantExternalId, accountId, maxQuantity }) => ({ variantExternalId, accountId, maxQuantity }));
    setProgress({ done: 0, total: caps.length, what: "Checking" });
    try {
      const counts: CapCounts = await saveCaps(api, operation, caps, {
        named,
        sink: {
          setServerError: (cap, message) => void messages.push(`${cap.variantExternalId}, ${named(cap.accountId)}: ${message}`),
          settle: () => {},
          refresh: () => {},
        },
        onProgress: (done, total, dryRun) => setProgress({ done, total, what: dryRun ? "Checking" : "Saving" }),
      });
      setSaved(t("plan.saved", { set: counts.set, removed: counts.removed, unchanged: counts.unchanged }));
      setPreview(null);
      await Promise.all(
        [queryKeys.allocations.of(operation.id), queryKeys.operation(operation.id)].map((queryKey) => queryClient.invalidateQueries({ queryKey })),
      );
    } catch (error) {
      if (!(error instanceof ChunkRefused)) throw error;
      setRefusal(error.refusal);
      setRefused(messages);
      setOutcome(
        error.saved.length
          ? describePartialSave(error, caps.length, "caps", (cap: PlannedCap) => `${cap.variantExternalId} · ${cap.accountId}`)
          : t("plan.nothingSaved"),
      );
    } finally {
      setProgress(null);
    }
  };

  const lineCount = new Set(preview?.map((row) => row.variantExternalId)).size;
  const accountCount = new Set(preview?.map((row) => row.accountId)).size;

  return (
    <Dialog title={t("lines.plan")} onClose={() => !busy && onClose()}>
      <div className="plan">
        {!preview && !saved && (
          <form onSubmit={plan} aria-label={t("plan.thePlan")}>
            <p className="muted">{t("plan.intro")}</p>
            <fieldset>
              <legend>{t("plan.method")}</legend>
              {METHODS.map(([value, label]) => (
                <label key={value} className="check">
                  <input
                    ref={step === "form" && method === value ? startHere : undefined}
                    type="radio"
                    name="method"
                    checked={method === value}
                    onChange={() => setMethod(value)}
                  />
                  {t(label)}
                </label>
              ))}
            </fieldset>
            <fieldset>
              <legend>{t("plan.among")}</legend>
              <label className="check">
                <input
                  type="radio"
                  name="among"
                  disabled={!attachedOffered || method === "proportional"}
                  checked={!byEarlier}
                  onChange={() => setAmong("attached")}
                  aria-describedby="plan-attached-hint"
                />
                {t("plan.attached", { code: operation.code })}
              </label>
              <span id="plan-attached-hint" className="muted hint">
                {t(attachedOffered ? "plan.equalOnly" : "plan.noAttached")}
              </span>
              <label className="check">
                <input type="radio" name="among" checked={byEarlier} onChange={() => setAmong("earlier")} />
                {t("plan.earlierAccounts")}
              </label>
            </fieldset>
            {byEarlier && (
              <Field
                id="plan-earlier"
                label={t("plan.earlierCode")}
                hint={
                  code.trim()
                    ? earlier.data
                      ? `${earlier.data.code}: ${nameOf(earlier.data)}`
                      : earlier.isFetching
                        ? "…"
                        : t("plan.noSuchCode")
                    : t("plan.codeHint")
                }
              >
                {(control) => <input {...control} value={code} onChange={(e) => setCode(e.target.value)} autoComplete="off" />}
              </Field>
            )}
            <Field id="plan-lines" label={t("ops.lines")} hint={t("plan.linesHint")}>
              {(control) => <input {...control} value={variants} onChange={(e) => setVariants(e.target.value)} />}
            </Field>
            <div className="actions">
              <button type="button" onClick={onClose} disabled={busy}>
                {t("common.cancel")}
              </button>
              <button type="submit" className="primary" disabled={busy}>
                {t("plan.preview")}
              </button>
            </div>
          </form>
        )}
        {preview && (
          <section aria-labelledby="plan-preview-heading">
            <h3 id="plan-preview-heading" tabIndex={-1} ref={startHere}>
              {preview.length ? t("plan.capsFor", { caps: preview.length, lines: lineCount, accounts: accountCount }) : t("plan.noCap")}
            </h3>
            <p className="muted">{t(preview.length ? "plan.notSavedYet" : "plan.nothingToShare")}</p>
            {preview.length > PREVIEW_ROWS && (
              <form className="filters" role="search" aria-label={t("plan.filterCaps")} onSubmit={(e) => e.preventDefault()}>
                <SearchFilter label={t("plan.lineOrAccount")} value={filter} onChange={setFilter} />
                <span className="muted">{t("plan.firstShown", { shown: shown.length, total: preview.length })}</span>
              </form>
            )}
            {preview.length > 0 && (
              <ListTable<PreviewRow>
                label={t("plan.planned")}
                items={shown}
                rowKey={capKey}
                empty={t("plan.noneMatches")}
                columns={[
                  { header: t("plan.line"), cell: (row) => row.variantExternalId },
                  { header: t("field.accountId"), cell: (row) => named(row.accountId) },
                  { header: t("caps.cap"), numeric: true, cell: (row) => figure(row.maxQuantity) },
                  { header: t("plan.capNow"), numeric: true, cell: (row) => (row.now === null ? t("plan.noneOfItsOwn") : figure(row.now)) },
                  { header: t("field.orderedQuantity"), numeric: true, cell: (row) => orderedText(row.ordered) },
                ]}
              />
            )}
            {shown.some((row) => !row.ordered.exact) && <p className="muted help">{t("plan.atMostHelp")}</p>}
            <div className="actions">
              <button
                type="button"
                onClick={() => {
                  setPreview(null);
                  setRefusal(null);
                  setRefused([]);
                  setOutcome(null);
                }}
                disabled={busy}
              >
                {t("plan.change")}
              </button>
              {preview.length > 0 && (
                <button type="button" className="primary" onClick={() => void save()} disabled={busy}>
                  {t("plan.save", { count: preview.length })}
                </button>
              )}
            </div>
          </section>
        )}
        {progress && (
          <div className="plan-progress">
            <progress aria-label={t(STEPS[progress.what])} value={progress.total ? progress.done : undefined} max={progress.total || undefined} />
            <span role="status">
              {progress.what === "Planning"
                ? t("plan.planningSoFar", { done: progress.done })
                : t("plan.progress", { step: progress.what, done: progress.done, total: progress.total })}
            </span>
          </div>
        )}
        <StatusNote>{outcome}</StatusNote>
        <ProblemView refusal={refusal}>{refused.length > 0 && <FirstOf items={refused} />}</ProblemView>
        {saved && (
          <div className="actions">
            <StatusNote>{saved}</StatusNote>
            <button type="button" className="primary" onClick={onClose} ref={startHere}>
              {t("common.close")}
            </button>
          </div>
        )}
      </div>
    </Dialog>
  );
}
