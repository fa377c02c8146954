import type { paths, Schemas } from "@campaign-policy/client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useSession } from "./context";
import { navigate } from "wouter/use-browser-location";
import { answer } from "./session";
import { useUnsavedForm } from "./leaving";
import { PagedList, type Column } from "./PagedList";
import { ChoiceFilter, FormActions, Link, SearchFilter } from "./ui";

export type Operation = Schemas["Operation"];
type OperationSort = NonNullable<NonNullable<paths["/v1/operations"]["get"]["parameters"]["query"]>["sort"]>[number];
export const LOCALES = ["en", "fr", "de"] as const;
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

export const nameOf = (operation: Pick<Operation, "name" | "code">) => operation.name.en ?? Object.values(operation.name)[0] ?? operation.code;

const COLUMNS: Column<Operation>[] = [
  { header: "Code", cell: (operation) => <Link to={`/console/operations/${operation.id}`}>{operation.code}</Link> },
  { header: "Name", cell: nameOf },
  { header: "Type", cell: (operation) => operation.type },
  { header: "Status", cell: (operation) => <span className={`badge ${operation.status.toLowerCase()}`}>{operation.status}</span> },
  { header: "Dates", cell: (operation) => `${operation.startDate.slice(0, 10)} → ${operation.endDate.slice(0, 10)}` },
  { header: "Lines", numeric: true, cell: (operation) => operation.lineCount },
];

export function OperationsPage() {
  const { api, session } = useSession();
  const [status, setStatus] = useState("");
  const [type, setType] = useState("");
  const [name, setName] = useState("");
  const [sort, setSort] = useState("-createdAt");
  const [creating, setCreating] = useState(false);
  const fetchPage = async (nextToken: string | undefined) =>
    (
      await answer(
        api.GET("/v1/operations", {
          params: {
            query: {
              limit: 50,
              sort: [sort as OperationSort],
              ...(nextToken && { nextToken }),
              ...(status && { status: [status as Operation["status"]] }),
              ...(type && { type: type as Operation["type"] }),
              ...(name && { name }),
            },
          },
        }),
      )
    ).data;
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
        queryKey={["operations"]}
        filters={{ status, type, name }}
        fetchPage={fetchPage}
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

const toInputDate = (value: string | undefined) => (value ? value.slice(0, 10) : "");

/** Create (no operation) or edit: localized names side by side, one column per locale. */
export function OperationForm({ operation, onDone }: { operation?: Operation; onDone: (saved?: Operation) => void }) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const [code, setCode] = useState(operation?.code ?? "");
  const [type, setType] = useState<Operation["type"]>(operation?.type ?? "PUBLIC");
  const [startDate, setStartDate] = useState(toInputDate(operation?.startDate));
  const [endDate, setEndDate] = useState(toInputDate(operation?.endDate));
  const [names, setNames] = useState<Record<string, string>>(() => ({ ...Object.fromEntries(LOCALES.map((l) => [l, ""])), ...operation?.name }));
  useUnsavedForm({ code, type, startDate, endDate, names });
  const save = useMutation({
    mutationFn: async () => {
      const name = Object.fromEntries(Object.entries(names).filter(([, value]) => value.trim()));
      const dates = { startDate: `${startDate}T00:00:00Z`, endDate: `${endDate}T23:59:59Z` };
      if (!operation) return (await answer(api.POST("/v1/operations", { body: { code, type, name, ...dates } }))).data;
      // Merge Patch: a cleared locale is removed with null.
      const patchName = Object.fromEntries(
        Object.keys(names)
          .map((locale) => [locale, names[locale].trim() || (operation.name[locale] ? null : undefined)])
          .filter(([, v]) => v !== undefined),
      );
      return (
        await answer(
          api.PATCH("/v1/operations/{operationId}", {
            params: { path: { operationId: operation.id }, header: { "If-Match": `"${operation.version}"` } as never },
            body: { code, type, name: patchName, ...dates },
          }),
        )
      ).data;
    },
    onSuccess: (saved) => {
      queryClient.invalidateQueries({ queryKey: ["operations"] });
      queryClient.setQueryData(["operation", saved.id], saved);
      onDone(saved);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <form className="card operation-form" onSubmit={submit} aria-label={operation ? "Edit Operation" : "New Operation"}>
      <div className="fields">
        <label>
          Code
          <input required value={code} onChange={(e) => setCode(e.target.value)} />
        </label>
        <label>
          Type
          <select value={type} onChange={(e) => setType(e.target.value as Operation["type"])}>
            <option>PUBLIC</option>
            <option>PRIVATE</option>
          </select>
        </label>
        <label>
          Start date
          <input type="date" required value={startDate} onChange={(e) => setStartDate(e.target.value)} />
        </label>
        <label>
          End date
          <input type="date" required value={endDate} onChange={(e) => setEndDate(e.target.value)} />
        </label>
      </div>
      <fieldset className="locales">
        <legend>Name, per locale</legend>
        {Object.keys(names).map((locale) => (
          <label key={locale}>
            Name ({locale})
            <input lang={locale} value={names[locale]} onChange={(e) => setNames({ ...names, [locale]: e.target.value })} />
          </label>
        ))}
      </fieldset>
      <FormActions submit={operation ? "Save changes" : "Create"} busy={save.isPending} onCancel={onDone} error={save.error} />
    </form>
  );
}
