import type { Schemas } from "@campaign-policy/client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useRoute } from "wouter";
import { useSession } from "./context";
import { ConfirmDialog, SecretOnce } from "./dialogs";
import { PagedList, type Column } from "./PagedList";
import { answer, toRefusal } from "./session";
import { useUnsavedForm } from "./leaving";
import { ChoiceFilter, FormActions, Link, ProblemView } from "./ui";

type Webhook = Schemas["Webhook"];
type Delivery = Schemas["Delivery"];
type DeliveryStatus = Delivery["status"];
const DELIVERY_STATUSES = ["pending", "delivered", "failed"] as const satisfies readonly DeliveryStatus[];
const SORTS = [
  ["-createdAt", "Newest first"],
  ["createdAt", "Oldest first"],
] as const;
/** How often an open deliveries list asks again (attempts happen in the background). */
const DELIVERIES_REFRESH_MS = 3000;

const when = (at: string | null) => (at ? at.replace("T", " ").slice(0, 19) : "—");
const typesOf = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((type) => type.trim())
    .filter(Boolean);

export function WebhooksPage() {
  const { api } = useSession();
  const [, selected] = useRoute<{ webhookId: string }>("/console/webhooks/:webhookId");
  const [sort, setSort] = useState("-createdAt");
  const [form, setForm] = useState<{ webhook?: Webhook } | null>(null);
  const [removing, setRemoving] = useState<Webhook | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: async (webhook: Webhook) => answer(api.DELETE("/v1/webhooks/{webhookId}", { params: { path: { webhookId: webhook.id } } })),
    onSuccess: () => {
      setRemoving(null);
      return queryClient.invalidateQueries({ queryKey: ["webhooks"] });
    },
  });
  const fetchPage = async (nextToken: string | undefined) =>
    (await answer(api.GET("/v1/webhooks", { params: { query: { limit: 100, sort: [sort as "createdAt" | "-createdAt"], ...(nextToken && { nextToken }) } } })))
      .data;
  const columns: Column<Webhook>[] = [
    { header: "URL", cell: (webhook) => <Link to={`/console/webhooks/${webhook.id}`}>{webhook.url}</Link> },
    { header: "Event types", cell: (webhook) => webhook.eventTypes.join(", ") },
    { header: "Description", cell: (webhook) => webhook.description ?? "" },
    { header: "Created", cell: (webhook) => webhook.createdAt.slice(0, 10) },
    {
      header: <span className="sr-only">Actions</span>,
      cell: (webhook) => (
        <span className="row-actions">
          <button type="button" onClick={() => setForm({ webhook })} aria-label={`Edit ${webhook.url}`}>
            Edit
          </button>
          <button
            type="button"
            className="danger"
            onClick={() => {
              remove.reset();
              setRemoving(webhook);
            }}
            aria-label={`Delete ${webhook.url}`}
          >
            Delete
          </button>
        </span>
      ),
    },
  ];
  return (
    <section>
      <div className="title-row">
        <h1>Webhooks</h1>
        <button type="button" className="primary" aria-expanded={form !== null && !form.webhook} onClick={() => setForm(form && !form.webhook ? null : {})}>
          New subscription
        </button>
      </div>
      {form && (
        <WebhookForm
          key={form.webhook?.id ?? "new"}
          webhook={form.webhook}
          onDone={(created) => {
            setForm(null);
            if (created) setSecret(created);
          }}
        />
      )}
      {secret && <SecretOnce label="Signing secret" secret={secret} onDone={() => setSecret(null)} />}
      {removing && (
        <ConfirmDialog
          title="Delete this subscription?"
          confirm="Delete"
          busy={remove.isPending}
          onConfirm={() => remove.mutate(removing)}
          onClose={() => setRemoving(null)}
        >
          <p>
            <strong>{removing.url}</strong> will receive no more events, and its deliveries are deleted with it.
          </p>
          <ProblemView refusal={remove.error ? toRefusal(remove.error) : null} />
        </ConfirmDialog>
      )}
      <PagedList
        label="Subscriptions"
        queryKey={["webhooks"]}
        filters={{}}
        fetchPage={fetchPage}
        columns={columns}
        rowKey={(webhook) => webhook.id}
        empty="No subscription yet."
        sorts={SORTS}
        sort={sort}
        onSort={setSort}
        rowClass={(webhook) => (webhook.id === selected?.webhookId ? "selected" : undefined)}
      />
      {selected && <Deliveries key={selected.webhookId} webhookId={selected.webhookId} />}
    </section>
  );
}

/** Create (no webhook: the answer's secret goes to onDone) or edit a subscription. */
function WebhookForm({ webhook, onDone }: { webhook?: Webhook; onDone: (secret?: string) => void }) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const [url, setUrl] = useState(webhook?.url ?? "");
  const [eventTypes, setEventTypes] = useState(webhook?.eventTypes.join(", ") ?? "*");
  const [description, setDescription] = useState(webhook?.description ?? "");
  useUnsavedForm({ url, eventTypes, description });
  const save = useMutation({
    mutationFn: async () => {
      const types = typesOf(eventTypes);
      if (!webhook)
        return (
          await answer(
            api.POST("/v1/webhooks", {
              body: { url, ...(types.length && { eventTypes: types }), ...(description.trim() && { description: description.trim() }) },
            }),
          )
        ).data.secret;
      await answer(
        api.PATCH("/v1/webhooks/{webhookId}", {
          params: { path: { webhookId: webhook.id } },
          body: { url, eventTypes: types, description: description.trim() || null },
        }),
      );
      return undefined;
    },
    onSuccess: (created) => {
      queryClient.invalidateQueries({ queryKey: ["webhooks"] });
      onDone(created);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <form className="card entity-form" onSubmit={submit} aria-label={webhook ? "Edit subscription" : "New subscription"}>
      <div className="fields">
        <label className="wide">
          URL
          <input type="url" required value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://erp.example.com/hooks/campaigns" />
        </label>
        <label>
          Event types
          <input value={eventTypes} onChange={(e) => setEventTypes(e.target.value)} aria-describedby="types-help" />
        </label>
        <label>
          Description
          <input value={description} onChange={(e) => setDescription(e.target.value)} />
        </label>
      </div>
      <p id="types-help" className="muted help">
        Comma-separated: exact types (order.created), a prefix ending in * (operation.*), or * for every type.
      </p>
      <FormActions submit={webhook ? "Save changes" : "Subscribe"} busy={save.isPending} onCancel={onDone} error={save.error} />
    </form>
  );
}

const DELIVERY_COLUMNS: Column<Delivery>[] = [
  { header: "Event", cell: (delivery) => <code>{delivery.eventType}</code> },
  { header: "Status", cell: (delivery) => <span className={`badge ${delivery.status}`}>{delivery.status}</span> },
  { header: "Attempts", numeric: true, cell: (delivery) => delivery.attempts },
  { header: "Answer", numeric: true, cell: (delivery) => delivery.responseStatus ?? "—" },
  { header: "Last error", cell: (delivery) => delivery.lastError ?? "" },
  { header: "Last attempt", cell: (delivery) => when(delivery.lastAttemptAt) },
  { header: "Next attempt", cell: (delivery) => when(delivery.nextAttemptAt) },
];

/** A subscription's deliveries, newest first, refreshed while open. */
function Deliveries({ webhookId }: { webhookId: string }) {
  const { api } = useSession();
  const [status, setStatus] = useState("");
  const fetchPage = async (nextToken: string | undefined) =>
    (
      await answer(
        api.GET("/v1/webhooks/{webhookId}/deliveries", {
          params: { path: { webhookId }, query: { limit: 100, ...(status && { status: [status as DeliveryStatus] }), ...(nextToken && { nextToken }) } },
        }),
      )
    ).data;
  return (
    <section className="card" aria-labelledby="deliveries-heading">
      <div className="title-row">
        <h2 id="deliveries-heading">Deliveries of {webhookId}</h2>
        <Link to="/console/webhooks">Close</Link>
      </div>
      <PagedList
        label="Deliveries"
        queryKey={["deliveries", webhookId]}
        filters={{ status }}
        fetchPage={fetchPage}
        columns={DELIVERY_COLUMNS}
        rowKey={(delivery) => delivery.id}
        empty="No delivery yet."
        refetchInterval={DELIVERIES_REFRESH_MS}
      >
        <ChoiceFilter label="Status" value={status} choices={DELIVERY_STATUSES} onChange={setStatus} />
      </PagedList>
    </section>
  );
}
