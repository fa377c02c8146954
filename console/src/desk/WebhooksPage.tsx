import { useState, type FormEvent } from "react";
import { when } from "../shared/format";
import { useViewParams } from "../shared/viewParams";
import { ConfirmDialog, SecretOnce } from "../shared/dialogs";
import { useUnsavedForm } from "../shared/leaving";
import { PagedList, type Column } from "../shared/PagedList";
import { toRefusal } from "../shared/session";
import { ChoiceFilter, FormActions, Link, ProblemView } from "../shared/ui";
import {
  useDeleteWebhook,
  useDeliveryList,
  useFailingDeliveries,
  useRedeliver,
  useSaveWebhook,
  useWebhookList,
  type Delivery,
  type DeliveryStatus,
  type Webhook,
} from "../api/webhooks";

const DELIVERY_STATUSES = ["pending", "delivered", "failed"] as const satisfies readonly DeliveryStatus[];
const SORTS = [
  ["-createdAt", "Newest first"],
  ["createdAt", "Oldest first"],
] as const;

const typesOf = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((type) => type.trim())
    .filter(Boolean);

/** The subscriptions; with `webhookId` (/console/webhooks/<id>), that subscription's deliveries under them. */
const DEFAULTS = { sort: "-createdAt", status: "" };

/** A subscription's failing deliveries, on its row: how many (failed, or pending after a failed attempt), a link to them. */
function FailingDeliveries({ webhook }: { webhook: Webhook }) {
  const deliveries = useFailingDeliveries(webhook.id);
  if (!deliveries.data) return <span className="muted">…</span>;
  const { failing, more } = deliveries.data;
  if (failing.length === 0) return <span className="muted">none failing</span>;
  return (
    <Link to={`/console/webhooks/${webhook.id}`}>
      <span className="badge failed">
        {failing.length}
        {more ? "+" : ""} failing
      </span>
      <span className="sr-only">: deliveries to {webhook.url}</span>
    </Link>
  );
}

export function WebhooksPage({ webhookId }: { webhookId?: string }) {
  const [view, setView] = useViewParams(DEFAULTS);
  const { sort } = view;
  const [form, setForm] = useState<{ webhook?: Webhook } | null>(null);
  const [removing, setRemoving] = useState<Webhook | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const remove = useDeleteWebhook(() => setRemoving(null));
  const list = useWebhookList(sort);
  const columns: Column<Webhook>[] = [
    { header: "URL", cell: (webhook) => <Link to={`/console/webhooks/${webhook.id}`}>{webhook.url}</Link> },
    { header: "Event types", cell: (webhook) => webhook.eventTypes.join(", "), wrap: true },
    { header: "Deliveries", cell: (webhook) => <FailingDeliveries webhook={webhook} /> },
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
        list={list}
        columns={columns}
        rowKey={(webhook) => webhook.id}
        empty="No subscription yet."
        sorts={SORTS}
        sort={sort}
        onSort={(sort) => setView({ sort })}
        rowClass={(webhook) => (webhook.id === webhookId ? "selected" : undefined)}
      />
      {webhookId && (
        <Deliveries
          key={webhookId}
          webhookId={webhookId}
          url={list.data?.pages.flatMap((page) => page.items).find((webhook) => webhook.id === webhookId)?.url}
          status={view.status}
          onStatus={(status) => setView({ status })}
        />
      )}
    </section>
  );
}

/** Create (no webhook: the answer's secret goes to onDone) or edit a subscription. */
function WebhookForm({ webhook, onDone }: { webhook?: Webhook; onDone: (secret?: string) => void }) {
  const [url, setUrl] = useState(webhook?.url ?? "");
  const [eventTypes, setEventTypes] = useState(webhook?.eventTypes.join(", ") ?? "*");
  const [description, setDescription] = useState(webhook?.description ?? "");
  useUnsavedForm({ url, eventTypes, description });
  const save = useSaveWebhook(webhook, onDone);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate({ url, eventTypes: typesOf(eventTypes), description: description.trim() || null });
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

/** A subscription's deliveries, newest first, refreshed while open; a delivered or failed one can be sent again. */
function Deliveries({ webhookId, url, status, onStatus }: { webhookId: string; url?: string; status: string; onStatus: (status: string) => void }) {
  const list = useDeliveryList(webhookId, status);
  const redeliver = useRedeliver(webhookId);
  const columns: Column<Delivery>[] = [
    { header: "Event", cell: (delivery) => <code>{delivery.eventType}</code> },
    { header: "Status", cell: (delivery) => <span className={`badge ${delivery.status}`}>{delivery.status}</span> },
    { header: "Attempts", numeric: true, cell: (delivery) => delivery.attempts },
    { header: "Answer", numeric: true, cell: (delivery) => delivery.responseStatus ?? "—" },
    { header: "Last error", cell: (delivery) => delivery.lastError ?? "", wrap: true },
    { header: "Last attempt", cell: (delivery) => when(delivery.lastAttemptAt) },
    { header: "Next attempt", cell: (delivery) => when(delivery.nextAttemptAt) },
    {
      header: <span className="sr-only">Actions</span>,
      cell: (delivery) =>
        delivery.status === "pending" ? null : (
          <button
            type="button"
            onClick={() => redeliver.mutate(delivery)}
            disabled={redeliver.isPending}
            aria-label={`Redeliver ${delivery.eventType} of ${when(delivery.createdAt)}`}
          >
            Redeliver
          </button>
        ),
    },
  ];
  return (
    <section className="card" aria-labelledby="deliveries-heading">
      <div className="title-row">
        <h2 id="deliveries-heading">Deliveries to {url ?? "this subscription"}</h2>
        <Link to="/console/webhooks">Close</Link>
      </div>
      {redeliver.isSuccess && (
        <p role="status" className="note">
          Sent again: the delivery is pending until the receiver answers.
        </p>
      )}
      <ProblemView refusal={redeliver.error ? toRefusal(redeliver.error) : null} />
      <PagedList label="Deliveries" list={list} columns={columns} rowKey={(delivery) => delivery.id} empty="No delivery matches.">
        <ChoiceFilter label="Status" value={status} choices={DELIVERY_STATUSES} onChange={onStatus} />
      </PagedList>
    </section>
  );
}
