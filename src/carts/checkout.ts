import { runOperationCommand } from "../operations/durable-object";
import type { Principal, RequestScope } from "../platform/app";
import { D1_MAX_JSON_PARAMETER_BYTES, getDb, type Db } from "../platform/db";
import type { Env } from "../platform/env";
import { ApiError } from "../platform/errors";
import { evaluateOrders, type QuotaOrder } from "../quotas/evaluate";
import { checkLink, requirePermittedAccount, type LinkRequest } from "./checks";
import { recordBlockedOrder } from "./commands";
import { findVisibleCart } from "./queries";
import type { CartBody } from "./schemas";

/*
 * The checkout path, in the order API.md §2 fixes: 404 → 409 state → 403 account_not_attached →
 * 422 content (lines, then quotas for orders) → 403 account_not_permitted. The reads run here in
 * the Worker; only the link itself goes through the Operation's coordinator, whose batch re-checks
 * in SQL that nothing the checks read has changed.
 */

function linkRequest(body: CartBody, scope: RequestScope): LinkRequest {
  const request: LinkRequest = {
    operationId: body.operationId,
    accountId: body.accountId,
    storeId: body.storeId ?? scope.storeId,
    lines: body.lines.map((line) => ({
      variantExternalId: line.variantExternalId,
      quantity: line.quantity,
      unitPrice: line.unitPrice,
      supplierId: line.supplierId ?? null,
    })),
    cartId: null,
  };
  // The lines are stored as one JSON value: keep it within what one D1 value holds. A UTF-16 unit
  // takes at most 3 UTF-8 bytes, so the bytes are counted only when the length cannot settle it.
  const json = JSON.stringify(request.lines);
  if (json.length * 3 > D1_MAX_JSON_PARAMETER_BYTES && new TextEncoder().encode(json).length > D1_MAX_JSON_PARAMETER_BYTES) {
    throw new ApiError("batch_too_large", `The lines take more than ${D1_MAX_JSON_PARAMETER_BYTES} bytes; split the cart.`);
  }
  return request;
}

/** One order per supplier (lines without a supplier form one more), in order of first appearance. */
function quotaOrdersOf(request: LinkRequest): QuotaOrder[] {
  const amounts = new Map<string | null, number>();
  for (const line of request.lines) {
    amounts.set(line.supplierId, (amounts.get(line.supplierId) ?? 0) + line.quantity * line.unitPrice);
  }
  return [...amounts].map(([supplierId, amount]) => ({ accountId: request.accountId, supplierId, storeId: request.storeId, amount }));
}

async function requireQuotasMet(env: Env, db: Db, principal: Principal, request: LinkRequest): Promise<void> {
  const orders = quotaOrdersOf(request);
  const results = await evaluateOrders(env, principal.tenantId, orders);
  const blocked = orders.filter((_, i) => !results[i].allowed);
  if (!blocked.length) return;
  await recordBlockedOrder(db, principal, request, { orders, results });
  const which = blocked.map((order) => (order.supplierId === null ? "the lines without a supplier" : `supplier ${order.supplierId}`));
  throw new ApiError("quota_min_not_met", `The order is below the effective minimum for ${which.join(", ")}; see results[] (one per orders[] entry).`, {
    results,
    orders,
  });
}

export async function placeCart(env: Env, principal: Principal, scope: RequestScope, body: CartBody) {
  const db = getDb(env);
  const request = linkRequest(body, scope);
  const checked = await checkLink(db, principal, request);
  requirePermittedAccount(checked, principal, request.accountId);
  return runOperationCommand(env, principal, request.operationId, "createCart", { checkedVersion: checked.operation.version, request });
}

export async function placeOrder(env: Env, principal: Principal, scope: RequestScope, body: CartBody | { cartId: string }) {
  const db = getDb(env);
  let request: LinkRequest;
  if ("cartId" in body) {
    const cart = await findVisibleCart(db, principal, body.cartId);
    request = { operationId: cart.operationId, accountId: cart.accountId, storeId: cart.storeId ?? scope.storeId, lines: cart.lines, cartId: cart.id };
  } else {
    request = linkRequest(body, scope);
  }
  const checked = await checkLink(db, principal, request);
  await requireQuotasMet(env, db, principal, request);
  requirePermittedAccount(checked, principal, request.accountId);
  return runOperationCommand(env, principal, request.operationId, "createOrder", { checkedVersion: checked.operation.version, request });
}
