import { useState, type ChangeEvent, type DragEvent } from "react";
import { t } from "./i18n";
import { toRefusal, type Refusal } from "./session";
import { ProblemView } from "./ui";

/**
 * A CSV import: pick or drop a file, it is sent as a dry run first (counts, or every error on its CSV
 * row), then Apply sends the same file for real. `send` is the resource's bulk PUT taking text/csv.
 */
export function CsvImport<Result>({
  label = t("common.importCsv"),
  columns,
  send,
  describe,
  onApplied,
  onExport,
}: {
  label?: string;
  /** What the file holds, shown beside the picker. */
  columns: string;
  send: (text: string, dryRun: boolean) => Promise<Result>;
  describe: (result: Result) => string;
  onApplied: () => void;
  /** Where the resource also exports as CSV. */
  onExport?: () => Promise<void>;
}) {
  const [file, setFile] = useState<{ name: string; text: string } | null>(null);
  const [outcome, setOutcome] = useState<{ dryRun: boolean; result?: Result; refusal?: Refusal } | null>(null);
  const [busy, setBusy] = useState(false);
  const run = async (text: string, dryRun: boolean) => {
    setBusy(true);
    setOutcome(null);
    try {
      setOutcome({ dryRun, result: await send(text, dryRun) });
      if (!dryRun) onApplied();
    } catch (error) {
      setOutcome({ dryRun, refusal: toRefusal(error) });
    } finally {
      setBusy(false);
    }
  };
  const pick = async (picked: File | undefined) => {
    if (!picked) return;
    const text = await picked.text();
    setFile({ name: picked.name, text });
    await run(text, true);
  };
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: dropping a file is a pointer shortcut; the file input inside is the way in for everyone.
    <div
      className="card import"
      onDragOver={(e) => e.preventDefault()}
      onDrop={(e: DragEvent) => {
        e.preventDefault();
        void pick(e.dataTransfer.files[0]);
      }}
    >
      <label>
        {label}
        <input type="file" accept=".csv,text/csv" onChange={(e: ChangeEvent<HTMLInputElement>) => void pick(e.target.files?.[0])} />
      </label>
      <span className="muted">{t("common.dropOrColumns", { columns })}</span>
      {onExport && (
        <button type="button" className="export" onClick={() => void onExport()}>
          {t("common.exportCsv")}
        </button>
      )}
      {busy && <p className="muted">{t("common.checking")}</p>}
      {outcome?.result && (
        <div role="status" className="import-outcome">
          {t(outcome.dryRun ? "common.dryRunOf" : "common.importedFile", { file: file?.name ?? "", outcome: describe(outcome.result) })}
          {outcome.dryRun && (
            <button type="button" className="primary" disabled={busy} onClick={() => file && run(file.text, false)}>
              {t("common.apply")}
            </button>
          )}
        </div>
      )}
      {outcome?.refusal && <ProblemView refusal={outcome.refusal} />}
    </div>
  );
}
