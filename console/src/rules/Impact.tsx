import { useEffect, useState } from "react";
import { useSession } from "../shared/context";
import { Money } from "../labels/money";
import { ListTable, type Column } from "../shared/PagedList";
import { toRefusal, type Refusal } from "../shared/session";
import { Link, ProblemView } from "../shared/ui";
import { fetchImpact, type Impact, type ImpactAccount, type ImpactRequest } from "../api/rules";
import { useAccountNames } from "../api/directory";
import { accountName } from "../labels/people";
import { formatNumber } from "../shared/format";
import { t } from "../shared/i18n";

/**
 * Impact before saving: what a rule change (a rule's form, the grid's edits, the tenant default)
 * would have done to the orders of the last 90 days, asked of the API (which replays them and
 * stores nothing), shown in a region named Impact; the save button then says what it will do.
 */

export interface ImpactCheck {
  /** The answer, with every page of accounts read so far. */
  result: Impact | null;
  /** Whether the answer is of the change as it stands (not of values edited since). */
  current: boolean;
  refusal: Refusal | null;
  busy: boolean;
  check: () => Promise<void>;
  more: () => Promise<void>;
  reset: () => void;
}

/** Checks the impact of `request` (null: nothing to check) when asked; `auto` checks it at once (a deletion's dialog). */
export function useImpactCheck(request: ImpactRequest | null, { auto = false } = {}): ImpactCheck {
  const { api } = useSession();
  const [state, setState] = useState<{ signature: string; result: Impact | null; refusal: Refusal | null } | null>(null);
  const [busy, setBusy] = useState(false);
  const signature = JSON.stringify(request);
  const check = async () => {
    if (!request) return;
    setBusy(true);
    try {
      setState({ signature, result: await fetchImpact(api, request), refusal: null });
    } catch (error) {
      setState({ signature, result: null, refusal: toRefusal(error) });
    } finally {
      setBusy(false);
    }
  };
  // biome-ignore lint/correctness/useExhaustiveDependencies(check): checked once, when the dialog asking for it opens.
  useEffect(() => {
    if (auto) void check();
  }, [auto]);
  const more = async () => {
    const shown = state;
    const result = shown?.result;
    if (!request || !shown || !result?.nextToken) return;
    setBusy(true);
    try {
      const page = await fetchImpact(api, request, result.nextToken);
      setState({ ...shown, result: { ...result, accounts: [...result.accounts, ...page.accounts], nextToken: page.nextToken } });
    } catch (error) {
      setState({ ...shown, refusal: toRefusal(error) });
    } finally {
      setBusy(false);
    }
  };
  return {
    result: state?.result ?? null,
    current: state !== null && state.signature === signature,
    refusal: state?.refusal ?? null,
    busy,
    check,
    more,
    reset: () => setState(null),
  };
}

/** What saving will do to past orders, in a few words ("2 orders newly blocked, none newly allowed"). */
export function impactWords(impact: Impact) {
  return t("impact.words", { blocked: impact.newlyBlocked, allowed: impact.newlyAllowed });
}

/** A save button's text: what it does, and what it does to past orders once their impact is checked. */
export const saveLabel = (verb: string, impact: ImpactCheck) => (impact.current && impact.result ? `${verb} (${impactWords(impact.result)})` : verb);

/** The orders' keys: an order placed without a supplier or a store is its own row ("none"), which a rule for every store covers. */
const accountColumns = (names: ReadonlyMap<string, string | null> | undefined): Column<ImpactAccount>[] => [
  // Each account links to its rules (the list filtered by it, a view the address keeps), by its name.
  {
    header: t("field.accountId"),
    cell: (row) => <Link to={`/console/quota-rules?accountId=${encodeURIComponent(row.accountId)}`}>{accountName(row.accountId, names)}</Link>,
  },
  { header: t("impact.supplier"), cell: (row) => row.supplierId ?? <span className="muted">{t("impact.none")}</span> },
  { header: t("impact.store"), cell: (row) => row.storeId ?? <span className="muted">{t("impact.none")}</span> },
  { header: t("totals.orders"), numeric: true, cell: (row) => formatNumber(row.orders) },
  { header: t("impact.newlyBlocked"), numeric: true, cell: (row) => formatNumber(row.newlyBlocked) },
  { header: t("impact.newlyAllowed"), numeric: true, cell: (row) => formatNumber(row.newlyAllowed) },
  {
    header: t("field.minimum"),
    numeric: true,
    cell: (row) => (
      <>
        <Money amount={row.minimumBefore} /> → <Money amount={row.minimumAfter} />
      </>
    ),
  },
];

/** The region named Impact: the counts, then the accounts whose minimum or outcome changes, each a link to it. */
export function ImpactRegion({ impact, of }: { impact: ImpactCheck; of: "change" | "rule" | "edit" | "edits" | "default" }) {
  const { result, refusal } = impact;
  const names = useAccountNames(result?.accounts.map((row) => row.accountId) ?? []);
  if (!result && !refusal) return null;
  return (
    <section className="card impact" aria-label={t("impact.region")}>
      <h3>{t("impact.title", { of })}</h3>
      {!impact.current && <p className="error-text">{t("impact.stale")}</p>}
      <ProblemView refusal={refusal} />
      {result && (
        <>
          <dl className="stats">
            <div className={result.newlyBlocked > 0 ? "stat bad" : "stat"}>
              <dt>{t("impact.newlyBlocked")}</dt>
              <dd>{formatNumber(result.newlyBlocked)}</dd>
            </div>
            <div className="stat">
              <dt>{t("impact.newlyAllowed")}</dt>
              <dd>{formatNumber(result.newlyAllowed)}</dd>
            </div>
            <div className="stat">
              <dt>{t("impact.considered")}</dt>
              <dd>{formatNumber(result.ordersConsidered)}</dd>
            </div>
            <div className="stat">
              <dt>{t("impact.blockedNowAfter")}</dt>
              <dd>
                {formatNumber(result.before.blocked)} → {formatNumber(result.after.blocked)}
              </dd>
            </div>
            <div className="stat">
              <dt>{t("impact.warnedNowAfter")}</dt>
              <dd>
                {formatNumber(result.before.warned)} → {formatNumber(result.after.warned)}
              </dd>
            </div>
          </dl>
          {result.accounts.length > 0 && <p className="muted help">{t("impact.rowsHelp")}</p>}
          <ListTable
            label={t("impact.affected")}
            columns={accountColumns(names)}
            items={result.accounts}
            rowKey={(row) => `${row.accountId}\u0000${row.supplierId ?? ""}\u0000${row.storeId ?? ""}`}
            empty={t("impact.noChange")}
          />
          {result.nextToken && (
            <button type="button" onClick={() => void impact.more()} disabled={impact.busy}>
              {t("impact.more")}
            </button>
          )}
        </>
      )}
    </section>
  );
}

/** The Check impact button. */
export function CheckImpactButton({ impact, disabled }: { impact: ImpactCheck; disabled?: boolean }) {
  return (
    <button type="button" onClick={() => void impact.check()} disabled={disabled || impact.busy} aria-busy={impact.busy || undefined}>
      {t("impact.check")}
    </button>
  );
}
