import { useState, type FormEvent } from "react";
import { day, formatNumber, when } from "../shared/format";
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
import { t, tx } from "../shared/i18n";

const DELIVERY_STATUSES = ["pending", "delivered", "failed"] as const satisfies readonly DeliveryStatus[];
const sorts = () =>
  [
    ["-createdAt", t("ops.sort.newest")],
    ["createdAt", t("orders.sort.oldest")],
  ] as const;
/** A receiver's address, as the URL field suggests one. */
const URL_EXAMPLE = "https://erp.example.com/hooks/campaigns";

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
  if (failing.length === 0) return <span className="muted">{t("webhooks.noneFailing")}</span>;
  return (
    <Link to={`/console/webhooks/${webhook.id}`}>
      <span className="badge failed">{t(more ? "webhooks.failingMore" : "webhooks.failing", { count: failing.length })}</span>
      <span className="sr-only">{t("webhooks.deliveriesTo", { url: webhook.url })}</span>
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
    { header: t("field.url"), cell: (webhook) => <Link to={`/console/webhooks/${webhook.id}`}>{webhook.url}</Link> },
    { header: t("webhooks.eventTypes"), cell: (webhook) => webhook.eventTypes.join(", "), wrap: true },
    { header: t("webhooks.deliveries"), cell: (webhook) => <FailingDeliveries webhook={webhook} /> },
    { header: t("field.description"), cell: (webhook) => webhook.description ?? "" },
    { header: t("field.createdAt"), cell: (webhook) => day(webhook.createdAt) },
    {
      header: <span className="sr-only">{t("orders.actions")}</span>,
      cell: (webhook) => (
        <span className="row-actions">
          <button type="button" onClick={() => setForm({ webhook })} aria-label={t("webhooks.editLabel", { url: webhook.url })}>
            {t("webhooks.edit")}
          </button>
          <button
            type="button"
            className="danger"
            onClick={() => {
              remove.reset();
              setRemoving(webhook);
            }}
            aria-label={t("webhooks.deleteLabel", { url: webhook.url })}
          >
            {t("common.delete")}
          </button>
        </span>
      ),
    },
  ];
  return (
    <section>
      <div className="title-row">
        <h1>{t("app.nav.webhooks")}</h1>
        <button type="button" className="primary" aria-expanded={form !== null && !form.webhook} onClick={() => setForm(form && !form.webhook ? null : {})}>
          {t("webhooks.new")}
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
      {secret && <SecretOnce label={t("webhooks.secret")} secret={secret} onDone={() => setSecret(null)} />}
      {removing && (
        <ConfirmDialog
          title={t("webhooks.deleteTitle")}
          confirm={t("common.delete")}
          busy={remove.isPending}
          onConfirm={() => remove.mutate(removing)}
          onClose={() => setRemoving(null)}
        >
          <p>{tx("webhooks.deleteText", { url: <strong>{removing.url}</strong> })}</p>
          <ProblemView refusal={remove.error ? toRefusal(remove.error) : null} />
        </ConfirmDialog>
      )}
      <PagedList
        label={t("webhooks.subscriptions")}
        list={list}
        columns={columns}
        rowKey={(webhook) => webhook.id}
        empty={t("webhooks.none")}
        sorts={sorts()}
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
    <form className="card entity-form" onSubmit={submit} aria-label={t(webhook ? "webhooks.editTitle" : "webhooks.new")}>
      <div className="fields">
        <label className="wide">
          {t("field.url")}
          <input type="url" required value={url} onChange={(e) => setUrl(e.target.value)} placeholder={URL_EXAMPLE} />
        </label>
        <label>
          {t("webhooks.eventTypes")}
          <input value={eventTypes} onChange={(e) => setEventTypes(e.target.value)} aria-describedby="types-help" />
        </label>
        <label>
          {t("field.description")}
          <input value={description} onChange={(e) => setDescription(e.target.value)} />
        </label>
      </div>
      <p id="types-help" className="muted help">
        {t("webhooks.typesHelp")}
      </p>
      <FormActions submit={t(webhook ? "common.saveChanges" : "webhooks.subscribe")} busy={save.isPending} onCancel={onDone} error={save.error} />
    </form>
  );
}

/** A subscription's deliveries, newest first, refreshed while open; a delivered or failed one can be sent again. */
function Deliveries({ webhookId, url, status, onStatus }: { webhookId: string; url?: string; status: string; onStatus: (status: string) => void }) {
  const list = useDeliveryList(webhookId, status);
  const redeliver = useRedeliver(webhookId);
  const columns: Column<Delivery>[] = [
    { header: t("webhooks.event"), cell: (delivery) => <code>{delivery.eventType}</code> },
    { header: t("field.status"), cell: (delivery) => <span className={`badge ${delivery.status}`}>{delivery.status}</span> },
    { header: t("webhooks.attempts"), numeric: true, cell: (delivery) => formatNumber(delivery.attempts) },
    { header: t("webhooks.answer"), numeric: true, cell: (delivery) => delivery.responseStatus ?? "—" },
    { header: t("webhooks.lastError"), cell: (delivery) => delivery.lastError ?? "", wrap: true },
    { header: t("webhooks.lastAttempt"), cell: (delivery) => when(delivery.lastAttemptAt) },
    { header: t("webhooks.nextAttempt"), cell: (delivery) => when(delivery.nextAttemptAt) },
    {
      header: <span className="sr-only">{t("orders.actions")}</span>,
      cell: (delivery) =>
        delivery.status === "pending" ? null : (
          <button
            type="button"
            onClick={() => redeliver.mutate(delivery)}
            disabled={redeliver.isPending}
            aria-label={t("webhooks.redeliverLabel", { type: delivery.eventType, at: when(delivery.createdAt) })}
          >
            {t("webhooks.redeliver")}
          </button>
        ),
    },
  ];
  return (
    <section className="card" aria-labelledby="deliveries-heading">
      <div className="title-row">
        <h2 id="deliveries-heading">{url ? t("webhooks.deliveriesHeading", { url }) : t("webhooks.deliveriesHere")}</h2>
        <Link to="/console/webhooks">{t("common.close")}</Link>
      </div>
      {redeliver.isSuccess && (
        <p role="status" className="note">
          {t("webhooks.sentAgain")}
        </p>
      )}
      <ProblemView refusal={redeliver.error ? toRefusal(redeliver.error) : null} />
      <PagedList label={t("webhooks.deliveries")} list={list} columns={columns} rowKey={(delivery) => delivery.id} empty={t("webhooks.noDelivery")}>
        <ChoiceFilter label={t("field.status")} value={status} choices={DELIVERY_STATUSES} onChange={onStatus} />
      </PagedList>
    </section>
  );
}
