import { and, count, eq, sql } from "drizzle-orm";
import { type Db } from "../platform/data/database";
import { runBatch, writeGuard } from "../platform/data/sql";
import { isWriteGuardFailure } from "../platform/data/constraint-errors";
import { randomSecret } from "../platform/core/crypto";
import { ApiError } from "../platform/core/errors";
import { idPrefixes, newId } from "../platform/core/ids";
import type { Principal } from "../platform/core/principal";
import { webhookDeliveries, webhooks } from "./tables";
import { nowIso } from "../platform/core/time";
import { validationError } from "../platform/schema/validation";
import { getWebhook, type WebhookRow } from "./queries";
import { MAX_WEBHOOKS_PER_TENANT, type CreateWebhookBody, type UpdateWebhookBody } from "./schemas";
import { webhookUrlProblem } from "./urls";

/** The URL policy depends on the instance (WEBHOOKS_ALLOW_LOCAL), so it is checked here, not in the schema. */
function checkUrl(url: string | undefined, allowLocal: boolean): void {
  const problem = url === undefined ? undefined : webhookUrlProblem(url, allowLocal);
  if (problem) throw validationError([{ field: "body.url", code: "invalid_url", message: `url ${problem}.` }]);
}

export async function createWebhook(db: Db, principal: Principal, body: CreateWebhookBody, allowLocal: boolean): Promise<WebhookRow> {
  checkUrl(body.url, allowLocal);
  const now = nowIso();
  const row: WebhookRow = {
    id: newId(idPrefixes.webhook),
    tenantId: principal.tenantId,
    url: body.url,
    eventTypes: body.eventTypes ?? ["*"],
    description: body.description ?? null,
    secret: `whsec_${randomSecret(32)}`,
    createdAt: now,
    updatedAt: now,
  };
  const existing = db.select({ n: count() }).from(webhooks).where(eq(webhooks.tenantId, principal.tenantId));
  try {
    // The limit is checked in the same transaction as the insert, so concurrent creates cannot pass it together.
    await runBatch(db, [writeGuard(sql`(${existing}) < ${MAX_WEBHOOKS_PER_TENANT}`), db.insert(webhooks).values(row)]);
  } catch (error) {
    if (!isWriteGuardFailure(error)) throw error;
    throw new ApiError("too_many_webhooks", `A tenant may have ${MAX_WEBHOOKS_PER_TENANT} webhooks; delete one first.`, { limit: MAX_WEBHOOKS_PER_TENANT });
  }
  return row;
}

export async function updateWebhook(db: Db, principal: Principal, webhookId: string, patch: UpdateWebhookBody, allowLocal: boolean): Promise<WebhookRow> {
  checkUrl(patch.url, allowLocal);
  const current = await getWebhook(db, principal.tenantId, webhookId);
  const next: WebhookRow = {
    ...current,
    url: patch.url ?? current.url,
    eventTypes: patch.eventTypes ?? current.eventTypes,
    description: patch.description === undefined ? current.description : patch.description,
  };
  const changed = next.url !== current.url || next.description !== current.description || JSON.stringify(next.eventTypes) !== JSON.stringify(current.eventTypes);
  if (!changed) return current;
  next.updatedAt = nowIso();
  const [updated] = await db
    .update(webhooks)
    .set({ url: next.url, eventTypes: next.eventTypes, description: next.description, updatedAt: next.updatedAt })
    .where(and(eq(webhooks.tenantId, principal.tenantId), eq(webhooks.id, webhookId)))
    .returning();
  if (!updated) throw new ApiError("not_found", `Webhook ${webhookId} not found.`);
  return updated;
}

/** The subscription and its delivery records go together; deliveries in flight find nothing and stop. */
export async function deleteWebhook(db: Db, principal: Principal, webhookId: string): Promise<void> {
  const [deleted] = await db.batch([
    db
      .delete(webhooks)
      .where(and(eq(webhooks.tenantId, principal.tenantId), eq(webhooks.id, webhookId)))
      .returning({ id: webhooks.id }),
    db.delete(webhookDeliveries).where(and(eq(webhookDeliveries.tenantId, principal.tenantId), eq(webhookDeliveries.webhookId, webhookId))),
  ]);
  if (!deleted.length) throw new ApiError("not_found", `Webhook ${webhookId} not found.`);
}
