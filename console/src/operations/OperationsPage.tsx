import { useState } from "react";
import { navigate } from "wouter/use-browser-location";
import { useSession } from "../shared/context";
import { PagedList, type Column } from "../shared/PagedList";
import { ChoiceFilter, Link, SearchFilter } from "../shared/ui";
import { useViewParams } from "../shared/viewParams";
import { nameOf, useOperationList, type Operation } from "../api/operations";
import { OperationForm } from "./OperationForm";

const STATUSES = ["DRAFT", "ACTIVE", "INACTIVE"] as const;
const TYPES = ["PUBLIC", "PRIVATE"] as const;
const SORTS = [
  ["-createdAt", "Newest first"],
  ["name", "Name"],
  ["code", "Code"],
  ["startDate", "Start date"],
  ["-endDate", "End date, latest first"],
  ["status", "Status"],
] as const;

const COLUMNS: Column<Operation>[] = [
  { header: "Code", cell: (operation) => <Link to={`/console/operations/${operation.id}`}>{operation.code}</Link> },
  { header: "Name", cell: nameOf },
  { header: "Type", cell: (operation) => operation.type },
  { header: "Status", cell: (operation) => <span className={`badge ${operation.status.toLowerCase()}`}>{operation.status}</span> },
  { header: "Dates", cell: (operation) => `${operation.startDate.slice(0, 10)} → ${operation.endDate.slice(0, 10)}` },
  { header: "Lines", numeric: true, cell: (operation) => operation.lineCount },
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
        <h1>Operations</h1>
        {session.role === "OPERATOR" && (
          <button type="button" className="primary" onClick={() => setCreating((open) => !open)} aria-expanded={creating}>
            New Operation
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
        label="Operations"
        list={list}
        columns={COLUMNS}
        rowKey={(operation) => operation.id}
        empty="No Operation matches."
        sorts={SORTS}
        sort={sort}
        onSort={setSort}
      >
        <SearchFilter label="Name contains" value={name} onChange={setName} />
        <ChoiceFilter label="Status" value={status} choices={STATUSES} onChange={setStatus} />
        <ChoiceFilter label="Type" value={type} choices={TYPES} onChange={setType} />
      </PagedList>
    </section>
  );
}
