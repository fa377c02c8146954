import { useState } from "react";
import { navigate } from "wouter/use-browser-location";
import { useSession } from "../shared/context";
import { PagedList, type Column } from "../shared/PagedList";
import { ChoiceFilter, Link, SearchFilter } from "../shared/ui";
import { useViewParams } from "../shared/viewParams";
import { nameOf, useOperationList, type Operation } from "../api/operations";
import { OperationForm } from "./OperationForm";
import { day, formatNumber } from "../shared/format";
import { t } from "../shared/i18n";

const STATUSES = ["DRAFT", "ACTIVE", "INACTIVE"] as const;
const TYPES = ["PUBLIC", "PRIVATE"] as const;
const sorts = () =>
  [
    ["-createdAt", t("ops.sort.newest")],
    ["name", t("field.name")],
    ["code", t("field.code")],
    ["startDate", t("field.startDate")],
    ["-endDate", t("ops.sort.endLatest")],
    ["status", t("field.status")],
  ] as const;

const columns = (): Column<Operation>[] => [
  { header: t("field.code"), cell: (operation) => <Link to={`/console/operations/${operation.id}`}>{operation.code}</Link> },
  { header: t("field.name"), cell: nameOf },
  { header: t("field.type"), cell: (operation) => operation.type },
  { header: t("field.status"), cell: (operation) => <span className={`badge ${operation.status.toLowerCase()}`}>{operation.status}</span> },
  { header: t("ops.dates"), cell: (operation) => `${day(operation.startDate)} → ${day(operation.endDate)}` },
  { header: t("ops.lines"), numeric: true, cell: (operation) => formatNumber(operation.lineCount) },
];

export function OperationsPage() {
  const { session } = useSession();
  const [view, setView] = useViewParams({ status: "", type: "", name: "", sort: "-createdAt" });
  const { status, type, name, sort } = view;
  const setStatus = (status: string) => setView({ status });
  const setType = (type: string) => setView({ type });
  const setName = (name: string) => setView({ name }, { typing: true });
  const setSort = (sort: string) => setView({ sort });
  const [creating, setCreating] = useState(false);
  const list = useOperationList({ status, type, name, sort });
  return (
    <section>
      <div className="title-row">
        <h1>{t("app.nav.operations")}</h1>
        {session.role === "OPERATOR" && (
          <button type="button" className="primary" onClick={() => setCreating((open) => !open)} aria-expanded={creating}>
            {t("ops.new")}
          </button>
        )}
      </div>
      {creating && (
        <OperationForm
          onDone={(created) => {
            setCreating(false);
            if (created) navigate(`/console/operations/${created.id}`);
          }}
        />
      )}
      <PagedList
        label={t("app.nav.operations")}
        list={list}
        columns={columns()}
        rowKey={(operation) => operation.id}
        empty={t("ops.noneMatches")}
        sorts={sorts()}
        sort={sort}
        onSort={setSort}
      >
        <SearchFilter label={t("ops.nameContains")} value={name} onChange={setName} />
        <ChoiceFilter label={t("field.status")} value={status} choices={STATUSES} onChange={setStatus} />
        <ChoiceFilter label={t("field.type")} value={type} choices={TYPES} onChange={setType} />
      </PagedList>
    </section>
  );
}
