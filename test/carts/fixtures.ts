// Sets up Operations ready to take carts and orders, through the public routes only.
import { env } from "cloudflare:test";
import { call, expectStatus, issueKey, uniqueId, type Caller } from "../helpers/client";

/** Dates that include now for the rest of this century. */
export const OPEN_DATES = { startDate: "2020-01-01T00:00:00Z", endDate: "2099-12-31T23:59:59Z" };

export interface LineSpec {
  variantExternalId: string;
  minQuantity: number;
  maxQuantity: number;
  variantName?: Record<string, string>;
  recommendedQuantity?: number | null;
}

export const DEFAULT_LINES: LineSpec[] = [
  { variantExternalId: "SKU-A", minQuantity: 0, maxQuantity: 10 },
  { variantExternalId: "SKU-B", minQuantity: 2, maxQuantity: 5 },
  { variantExternalId: "SKU-C", minQuantity: 1, maxQuantity: 100 },
];

export async function putAccounts(operator: Caller, accounts: { accountId: string; name?: string; users?: { userId: string; email: string }[] }[]) {
  const body = accounts.map((a) => ({ accountId: a.accountId, name: a.name ?? a.accountId, users: a.users ?? [] }));
  expectStatus(await call(operator, "PUT", "/v1/accounts", { body }), 200);
}

/** A directory account whose only user is a fresh userId, and an ACCOUNT key for that user. */
export async function accountWithKey(operator: Caller, accountId = uniqueId("acc")) {
  const userId = uniqueId("u");
  await putAccounts(operator, [{ accountId, users: [{ userId, email: `${userId}@example.test` }] }]);
  return { accountId, userId, caller: await issueKey(operator.tenantId, "ACCOUNT", userId) };
}

export interface OperationSetup {
  type?: "PUBLIC" | "PRIVATE";
  lines?: LineSpec[];
  /** Directory account ids to attach (PRIVATE only; already in the directory). */
  attach?: string[];
  status?: "ACTIVE" | "DRAFT" | "INACTIVE";
  overrides?: Record<string, unknown>;
}

/** Creates an Operation (open dates by default), its lines and attachments, then sets its status (ACTIVE by default). */
export async function setUpOperation(operator: Caller, setup: OperationSetup = {}) {
  const type = setup.type ?? "PRIVATE";
  const created = expectStatus(
    await call(operator, "POST", "/v1/operations", {
      body: { code: uniqueId("OP"), name: { en: "Spring", fr: "Printemps" }, type, ...OPEN_DATES, ...setup.overrides },
    }),
    201,
  );
  const lines = setup.lines ?? DEFAULT_LINES;
  if (lines.length) expectStatus(await call(operator, "PUT", `/v1/operations/${created.id}/lines`, { body: lines }), 200);
  if (setup.attach?.length) {
    expectStatus(await call(operator, "PUT", `/v1/operations/${created.id}/accounts`, { body: setup.attach }), 200);
  }
  const status = setup.status ?? "ACTIVE";
  if (status !== "DRAFT") {
    expectStatus(await call(operator, "POST", `/v1/operations/${created.id}/status`, { body: { status: "ACTIVE" } }), 200);
    if (status === "INACTIVE") {
      expectStatus(await call(operator, "POST", `/v1/operations/${created.id}/status`, { body: { status: "INACTIVE" } }), 200);
    }
  }
  return created as { id: string; version: number };
}

export function cartBody(operationId: string, accountId: string, lines: Record<string, unknown>[], extra: Record<string, unknown> = {}) {
  return { operationId, accountId, lines, ...extra };
}

export const line = (variantExternalId: string, quantity: number, unitPrice = 100, supplierId?: string | null) => ({
  variantExternalId,
  quantity,
  unitPrice,
  ...(supplierId !== undefined && { supplierId }),
});

/** Every row a cart or order request could change, for "a refused request changes nothing". */
export async function linkState(tenantId: string) {
  const [operations, carts, orders, attachments, events] = await env.DB.batch([
    env.DB.prepare("select id, cart_count, order_count, version, updated_at from operations where tenant_id = ? order by id").bind(tenantId),
    env.DB.prepare("select id from carts where tenant_id = ? order by id").bind(tenantId),
    env.DB.prepare("select id from orders where tenant_id = ? order by id").bind(tenantId),
    env.DB.prepare("select operation_id, account_id, operation_status from operation_accounts where tenant_id = ? order by 1, 2").bind(tenantId),
    env.DB.prepare("select type from events where tenant_id = ? order by id").bind(tenantId),
  ]);
  return {
    operations: operations.results,
    carts: carts.results,
    orders: orders.results,
    attachments: attachments.results,
    events: events.results,
  };
}

export async function eventTypes(operator: Caller): Promise<string[]> {
  const rows = await env.DB.prepare("select type from events where tenant_id = ? order by id").bind(operator.tenantId).all<{ type: string }>();
  return rows.results.map((r) => r.type);
}
