import { useViewParams } from "../shared/viewParams";
import { useQueryClient } from "@tanstack/react-query";
import { useSession } from "../shared/context";
import { CsvImport } from "../shared/CsvImport";
import { hasHeader, parseTable } from "../shared/csv";
import { PagedList, type Column } from "../shared/PagedList";
import { queryKeys } from "../shared/queryKeys";
import { toRefusal } from "../shared/session";
import { SearchFilter } from "../shared/ui";
import { putAccounts, useDirectoryList, type Account, type AccountsUpsert } from "../api/directory";
import { day } from "../shared/format";
import { t } from "../shared/i18n";
const sorts = () =>
  [
    ["accountId", t("orders.accountId")],
    ["name", t("field.name")],
    ["-name", t("directory.nameDesc")],
  ] as const;
const CSV_COLUMNS = ["accountId", "name", "userId", "email"] as const;

const columns = (): Column<Account>[] => [
  { header: t("field.accountId"), cell: (account) => account.accountId },
  { header: t("field.name"), cell: (account) => account.name },
  {
    header: t("field.users"),
    cell: (account) =>
      account.users.length === 0 ? (
        <span className="muted">{t("directory.noUsers")}</span>
      ) : (
        <span title={account.users.map((user) => `${user.userId} <${user.email}>`).join("\n")}>
          {account.users
            .slice(0, 2)
            .map((user) => `${user.userId} <${user.email}>`)
            .join(", ")}
          {account.users.length > 2 && ` ${t("directory.andMore", { count: account.users.length - 2 })}`}
        </span>
      ),
  },
  { header: t("directory.updated"), cell: (account) => day(account.updatedAt) },
];

/**
 * The accounts of a CSV, one row per user (accountId, name, userId, email; an account without
 * users has one row with the last two empty), and the CSV row where each account and user stands.
 */
export function readAccounts(text: string) {
  const rows = parseTable(text);
  const first = hasHeader(rows, CSV_COLUMNS) ? 1 : 0;
  const order = first ? CSV_COLUMNS.map((column) => rows[0].indexOf(column)) : [0, 1, 2, 3];
  const byId = new Map<string, { account: AccountsUpsert[number]; row: number; userRows: number[] }>();
  rows.slice(first).forEach((cells, i) => {
    const [accountId, name, userId, email] = order.map((at) => (at >= 0 ? (cells[at] ?? "") : ""));
    const row = i + first + 1;
    let entry = byId.get(accountId);
    if (!entry) {
      entry = { account: { accountId, name, users: [] }, row, userRows: [] };
      byId.set(accountId, entry);
    }
    if (userId || email) {
      entry.account.users!.push({ userId, email });
      entry.userRows.push(row);
    }
  });
  const entries = [...byId.values()];
  /** The CSV row a problem item's field (body.<account>[.users.<user>]…) points at. */
  const rowOf = (field: string | undefined) => {
    const [, account, user] = /^body\.(\d+)(?:\.users\.(\d+))?/.exec(field ?? "") ?? [];
    if (account === undefined) return undefined;
    const entry = entries[Number(account)];
    return user !== undefined ? entry?.userRows[Number(user)] : entry?.row;
  };
  return { accounts: entries.map((entry) => entry.account), rowOf };
}

export function AccountsPage() {
  const { session } = useSession();
  const [view, setView] = useViewParams({ name: "", email: "", userId: "", sort: "accountId" });
  const { name, email, userId, sort } = view;
  const setName = (name: string) => setView({ name }, { typing: true });
  const setEmail = (email: string) => setView({ email }, { typing: true });
  const setUserId = (userId: string) => setView({ userId }, { typing: true });
  const setSort = (sort: string) => setView({ sort });
  const list = useDirectoryList({ name, email, userId, sort });
  return (
    <section>
      <div className="title-row">
        <h1>{t("app.nav.accounts")}</h1>
      </div>
      {session.role === "OPERATOR" && <AccountsImport />}
      <PagedList
        label={t("app.nav.accounts")}
        list={list}
        columns={columns()}
        rowKey={(account) => account.accountId}
        empty={t("directory.noneMatches")}
        sorts={sorts()}
        sort={sort}
        onSort={setSort}
      >
        <SearchFilter label={t("ops.nameContains")} value={name} onChange={setName} />
        <SearchFilter label={t("directory.userEmail")} value={email} onChange={setEmail} />
        <SearchFilter label={t("directory.userId")} value={userId} onChange={setUserId} />
      </PagedList>
    </section>
  );
}

/** A CSV of accounts and their users: a dry run first (counts, or each error on its CSV row and column), then Apply. */
function AccountsImport() {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const send = async (text: string, dryRun: boolean) => {
    const { accounts, rowOf } = readAccounts(text);
    try {
      return await putAccounts(api, accounts, dryRun);
    } catch (error) {
      const items = (toRefusal(error).problem as { errors?: { field?: string; row?: number }[] }).errors;
      // Each error on its CSV row and column, rather than its place in the JSON the console sent.
      items?.forEach((item) => {
        item.row = rowOf(item.field);
        if (item.row !== undefined)
          item.field =
            item.field
              ?.split(".")
              .filter((part) => !/^\d+$/.test(part) && part !== "body" && part !== "users")
              .join(".") || undefined;
      });
      throw error;
    }
  };
  return (
    <CsvImport
      label={t("directory.import")}
      columns={t("directory.importColumns", { columns: CSV_COLUMNS.join(", ") })}
      send={send}
      describe={(result) => t("directory.importOutcome", { created: result.created, updated: result.updated })}
      onApplied={() => void queryClient.invalidateQueries({ queryKey: queryKeys.directory.all })}
    />
  );
}
