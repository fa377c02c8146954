// Test-only shortcuts for state other resources own (lines, attachments, cart/order links), written
// straight to D1 so tests of one resource do not depend on another's routes.
import { env } from "cloudflare:test";
import { expectStatus, issueKey, operationBody, setStatus, uniqueId, type Caller, callRoute } from "./client";
import { routes } from "./routes";
import { operationDb, tenantDb } from "./shards";

/** Adds one line row to an Operation and keeps its line_count in step, as PUT lines would. */
export async function addLineDirectly(tenantId: string, operationId: string, variantExternalId = uniqueId("SKU")) {
  const db = await tenantDb(tenantId);
  await db.batch([
    db
      .prepare(
        `insert into operation_lines (operation_id, variant_external_id, tenant_id, variant_name, min_quantity, max_quantity, updated_at)
       values (?, ?, ?, '{"en":"Line"}', 0, 10, ?)`,
      )
      .bind(operationId, variantExternalId, tenantId, new Date().toISOString()),
    db.prepare("update operations set line_count = (select count(*) from operation_lines where operation_id = ?) where id = ?").bind(operationId, operationId),
  ]);
}

/** Puts `userId` in a fresh directory account attached to each of `operationIds`; returns an ACCOUNT key for that user. */
export async function accountKeyAttachedTo(tenantId: string, operationIds: string[], userId = uniqueId("u")) {
  const accountId = uniqueId("acc");
  const now = new Date().toISOString();
  const db = await tenantDb(tenantId);
  await db.batch([
    db
      .prepare("insert into accounts (tenant_id, account_id, name, name_search, users, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?)")
      .bind(tenantId, accountId, "Account", "account", JSON.stringify([{ userId, email: `${userId}@example.test` }]), now, now),
    db
      .prepare("insert into account_users (tenant_id, account_id, user_id, email_lower) values (?, ?, ?, ?)")
      .bind(tenantId, accountId, userId, `${userId}@example.test`),
    ...operationIds.map((operationId) =>
      db
        .prepare("insert into operation_accounts (operation_id, account_id, tenant_id, attached_at, attached_by) values (?, ?, ?, ?, 'test')")
        .bind(operationId, accountId, tenantId, now),
    ),
  ]);
  return { accountId, caller: await issueKey(tenantId, "ACCOUNT", userId) };
}

/** Marks the Operation as having linked carts/orders, as the carts resource would. */
export async function linkDirectly(operationId: string, links: { carts?: number; orders?: number }) {
  const db = await operationDb(operationId);
  await db
    .prepare("update operations set cart_count = cart_count + ?, order_count = order_count + ? where id = ?")
    .bind(links.carts ?? 0, links.orders ?? 0, operationId)
    .run();
}

/** Everything of a tenant the Operation, cart and order routes may change: compared before/after a refused request. */
export async function snapshotTenant(tenantId: string) {
  const db = await tenantDb(tenantId);
  const [operations, owners, lines, attachments, carts, orders, events, approvals] = await db.batch<Record<string, unknown>>([
    db.prepare("select * from operations where tenant_id = ? order by id").bind(tenantId),
    db.prepare("select * from operation_owners where tenant_id = ? order by operation_id, user_id").bind(tenantId),
    db.prepare("select * from operation_lines where tenant_id = ? order by operation_id, variant_external_id").bind(tenantId),
    db.prepare("select * from operation_accounts where tenant_id = ? order by operation_id, account_id").bind(tenantId),
    db.prepare("select * from carts where tenant_id = ? order by id").bind(tenantId),
    db.prepare("select * from orders where tenant_id = ? order by id").bind(tenantId),
    // Every column but handed_on_at: webhook bookkeeping the queue consumer sets after the request.
    db.prepare("select id, tenant_id, type, operation_id, rule_id, actor, at, data from events where tenant_id = ? order by id").bind(tenantId),
    db.prepare("select * from operation_approvals where tenant_id = ? order by operation_id, version, approver").bind(tenantId),
  ]);
  return {
    operations: operations.results,
    owners: owners.results,
    lines: lines.results,
    attachments: attachments.results,
    carts: carts.results,
    orders: orders.results,
    events: events.results,
    approvals: approvals.results,
  };
}

/** snapshotTenant plus the rows it leaves out: the tenant row (quota default), keys, directory, rules, webhooks. */
export async function snapshotWholeTenant(tenantId: string) {
  const db = await tenantDb(tenantId);
  const rows = await db.batch(
    [
      "select * from tenants where id = ?",
      "select * from accounts where tenant_id = ? order by account_id",
      "select * from account_users where tenant_id = ? order by account_id, user_id",
      "select * from quota_rules where tenant_id = ? order by id",
      "select * from webhooks where tenant_id = ? order by id",
    ].map((sql) => db.prepare(sql).bind(tenantId)),
  );
  const control = await env.CONTROL.batch(
    ["select * from tenant_directory where tenant_id = ?", "select * from api_keys where tenant_id = ? order by id"].map((sql) =>
      env.CONTROL.prepare(sql).bind(tenantId),
    ),
  );
  return { ...(await snapshotTenant(tenantId)), more: rows.map((result) => result.results), control: control.map((result) => result.results) };
}

/** Creates an Operation and brings it to ACTIVE (adding a line first). */
export async function activeOperation(caller: Caller, overrides: Record<string, unknown> = {}) {
  const created = expectStatus(await callRoute(caller, routes.createOperation, { body: operationBody(overrides) }), 201);
  await addLineDirectly(caller.tenantId, created.id);
  return expectStatus(await setStatus(caller, created.id, "ACTIVE"), 200);
}
