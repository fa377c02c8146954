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
import { plural } from "../shared/format";
import { ChunkRefused, describePartialSave } from "../shared/grid/models/chunkedSave";
import { ListTable } from "../shared/PagedList";
import { queryKeys } from "../shared/queryKeys";
import { toRefusal, type Refusal } from "../shared/session";
import { Field, FirstOf, ProblemView, SearchFilter, StatusNote, useDebounced } from "../shared/ui";
import { saveCaps } from "./capsSave";

/** The plan's methods, as the API names them and in words. */
const METHODS = [
  ["equal", "Equal shares"],
  ["proportional", "In proportion to what each ordered in an earlier Operation"],
] as const;

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
    if (byEarlier && !earlier.data) return setOutcome(code.trim() ? `No Operation has the code ${code.trim()}.` : "Type the code of the earlier Operation.");
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
      setSaved(`Saved: ${figure(counts.set)} caps set, ${figure(counts.removed)} removed, ${figure(counts.unchanged)} as they were.`);
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
          : "Nothing was saved: the check refused the plan.",
      );
    } finally {
      setProgress(null);
    }
  };

  const lineCount = new Set(preview?.map((row) => row.variantExternalId)).size;
  const accountCount = new Set(preview?.map((row) => row.accountId)).size;

  return (
    <Dialog title="Plan allocation" onClose={() => !busy && onClose()}>
      <div className="plan">
        {!preview && !saved && (
          <form onSubmit={plan} aria-label="The plan">
            <p className="muted">
              Splits each pool among accounts as caps of their own: each keeps what it already ordered, the rest is shared in whole packs. Nothing is saved
              until you see the caps and save them.
            </p>
            <fieldset>
              <legend>Method</legend>
              {METHODS.map(([value, label]) => (
                <label key={value} className="check">
                  <input
                    ref={step === "form" && method === value ? startHere : undefined}
                    type="radio"
                    name="method"
                    checked={method === value}
                    onChange={() => setMethod(value)}
                  />
                  {label}
                </label>
              ))}
            </fieldset>
            <fieldset>
              <legend>Among</legend>
              <label className="check">
                <input
                  type="radio"
                  name="among"
                  disabled={!attachedOffered || method === "proportional"}
                  checked={!byEarlier}
                  onChange={() => setAmong("attached")}
                  aria-describedby="plan-attached-hint"
                />
                The accounts attached to {operation.code}
              </label>
              <span id="plan-attached-hint" className="muted hint">
                {attachedOffered ? "Equal shares only." : "A PUBLIC Operation has no attached accounts."}
              </span>
              <label className="check">
                <input type="radio" name="among" checked={byEarlier} onChange={() => setAmong("earlier")} />
                The accounts that ordered in an earlier Operation
              </label>
            </fieldset>
            {byEarlier && (
              <Field
                id="plan-earlier"
                label="Earlier Operation's code"
                hint={
                  code.trim()
                    ? earlier.data
                      ? `${earlier.data.code}: ${nameOf(earlier.data)}`
                      : earlier.isFetching
                        ? "…"
                        : "No Operation has this code"
                    : "Its code, as its page shows it."
                }
              >
                {(control) => <input {...control} value={code} onChange={(e) => setCode(e.target.value)} autoComplete="off" />}
              </Field>
            )}
            <Field id="plan-lines" label="Lines" hint="Variant codes, comma-separated; empty: every line with a pool.">
              {(control) => <input {...control} value={variants} onChange={(e) => setVariants(e.target.value)} />}
            </Field>
            <div className="actions">
              <button type="button" onClick={onClose} disabled={busy}>
                Cancel
              </button>
              <button type="submit" className="primary" disabled={busy}>
                Preview the caps
              </button>
            </div>
          </form>
        )}
        {preview && (
          <section aria-labelledby="plan-preview-heading">
            <h3 id="plan-preview-heading" tabIndex={-1} ref={startHere}>
              {preview.length
                ? `${plural(preview.length, "cap")} for ${plural(lineCount, "line")} and ${plural(accountCount, "account")}`
                : "The plan has no cap"}
            </h3>
            <p className="muted">
              {preview.length
                ? "Nothing is saved yet. Each account's cap becomes its own on the line (over the line's Per account); what it ordered stays within it."
                : "No line planned has a pool, or there is no account to share among."}
            </p>
            {preview.length > PREVIEW_ROWS && (
              <form className="filters" role="search" aria-label="Filter the caps" onSubmit={(e) => e.preventDefault()}>
                <SearchFilter label="Line or account contains" value={filter} onChange={setFilter} />
                <span className="muted">
                  The first {shown.length} shown of {figure(preview.length)}.
                </span>
              </form>
            )}
            {preview.length > 0 && (
              <ListTable<PreviewRow>
                label="Planned caps"
                items={shown}
                rowKey={capKey}
                empty="No cap matches."
                columns={[
                  { header: "Line", cell: (row) => row.variantExternalId },
                  { header: "Account", cell: (row) => named(row.accountId) },
                  { header: "Cap", numeric: true, cell: (row) => figure(row.maxQuantity) },
                  { header: "Cap now", numeric: true, cell: (row) => (row.now === null ? "none of its own" : figure(row.now)) },
                  { header: "Ordered", numeric: true, cell: (row) => orderedText(row.ordered) },
                ]}
              />
            )}
            {shown.some((row) => !row.ordered.exact) && (
              <p className="muted help">
                "At most": the API lists what an account ordered of a line only once it has a cap of its own; the plan keeps it within the cap either way.
              </p>
            )}
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
                Change the plan
              </button>
              {preview.length > 0 && (
                <button type="button" className="primary" onClick={() => void save()} disabled={busy}>
                  Save {plural(preview.length, "cap")}
                </button>
              )}
            </div>
          </section>
        )}
        {progress && (
          <div className="plan-progress">
            <progress aria-label={`${progress.what} caps`} value={progress.total ? progress.done : undefined} max={progress.total || undefined} />
            <span role="status">
              {progress.what === "Planning"
                ? `Planning… ${figure(progress.done)} caps so far`
                : `${progress.what} ${figure(progress.done)} of ${figure(progress.total)} caps…`}
            </span>
          </div>
        )}
        <StatusNote>{outcome}</StatusNote>
        <ProblemView refusal={refusal}>{refused.length > 0 && <FirstOf items={refused} />}</ProblemView>
        {saved && (
          <div className="actions">
            <StatusNote>{saved}</StatusNote>
            <button type="button" className="primary" onClick={onClose} ref={startHere}>
              Close
            </button>
          </div>
        )}
      </div>
    </Dialog>
  );
}
