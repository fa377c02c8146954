import { operationCoordinator } from "../operations/coordinator/runner";
import type { Context } from "hono";
import type { AppBindings } from "../platform/http/context";
import { D1_MAX_JSON_PARAMETER_BYTES } from "../platform/data/database";
import { ApiError } from "../platform/core/errors";
import { appendEvent } from "../platform/data/events";
import { idPrefixes, newId } from "../platform/core/ids";
import { markClaimCommitted } from "../platform/data/claims";
import { runBatch } from "../platform/data/sql";
import { nowIso } from "../platform/core/time";
import { actorOf, type RequestScope } from "../platform/core/principal";
import { evaluateOrders, ruleReadingOf, type QuotaOrder, type QuotaResult } from "../quotas/evaluate";
import { quotaOrderFactRows } from "../quotas/order-facts";
import { refusalStatements } from "../totals/commands";
import { checkPlacement, requirePermittedAccount, type Placement } from "./checks";
import { createCart, createOrder } from "./commands";
import { findVisibleCart } from "./queries";
import type { CartBody } from "./schemas";

/*
 * Placing a cart or an order, in one pass:
 *   parse (the body → a Placement) → checks, in parallel (the Operation, its lines, attachment and
 *   permission; for orders also the quotas) → one command on the Operation's Durable Object → answer.
 * The verdicts come in a fixed order whatever finishes first: 404 → 409 state → 403
 * account_not_attached → 422 lines → 422 quota (orders) → 403 account_not_permitted. The command's
 * batch re-checks in SQL that nothing the checks read has changed.
 */

type RequestContext = Context<AppBindings>;

export async function placeCart(c: RequestContext, body: CartBody) {
  const placement = placementOf(body, c.var.scope);
  const checked = await checkPlacement(c.var.db, c.var.principal, placement, { allocation: true });
  requirePermittedAccount(checked, c.var.principal, placement.accountId);
  return operationCoordinator(c).run(placement.operationId, createCart, { checkedVersion: checked.operation.version, placement });
}

export async function placeOrder(c: RequestContext, body: CartBody | { cartId: string }) {
  const placement = "cartId" in body ? await placementOfCart(c, body.cartId) : placementOf(body, c.var.scope);
  const [checked, quotas] = await Promise.all([checkPlacement(c.var.db, c.var.principal, placement), evaluateQuotas(c, placement)]);
  if (quotas.blocked) await blockOrder(c, placement, quotas);
  requirePermittedAccount(checked, c.var.principal, placement.accountId);
  const warnings = quotas.results.filter((result) => result.reason !== null);
  return operationCoordinator(c).run(placement.operationId, createOrder, {
    checkedVersion: checked.operation.version,
    placement,
    quotaOrders: quotas.orders,
    warnings,
  });
}

/** A cart body with its defaults applied (storeId from svc-store), checked to fit one D1 value. */
function placementOf(body: CartBody, scope: RequestScope): Placement {
  const placement: Placement = {
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
  const json = JSON.stringify(placement.lines);
  if (json.length * 3 > D1_MAX_JSON_PARAMETER_BYTES && new TextEncoder().encode(json).length > D1_MAX_JSON_PARAMETER_BYTES) {
    throw new ApiError("batch_too_large", `The lines take more than ${D1_MAX_JSON_PARAMETER_BYTES} bytes; split the cart.`);
  }
  return placement;
}

async function placementOfCart(c: RequestContext, cartId: string): Promise<Placement> {
  const cart = await findVisibleCart(c.var.db, c.var.principal, cartId);
  return { operationId: cart.operationId, accountId: cart.accountId, storeId: cart.storeId ?? c.var.scope.storeId, lines: cart.lines, cartId: cart.id };
}

interface QuotaVerdict {
  orders: QuotaOrder[];
  results: QuotaResult[];
  blocked: boolean;
}

/** One quota order per supplier (lines without a supplier form one more), in order of first appearance. */
async function evaluateQuotas(c: RequestContext, placement: Placement): Promise<QuotaVerdict> {
  const amounts = new Map<string | null, number>();
  for (const line of placement.lines) {
    amounts.set(line.supplierId, (amounts.get(line.supplierId) ?? 0) + line.quantity * line.unitPrice);
  }
  const orders = [...amounts].map(([supplierId, amount]) => ({ accountId: placement.accountId, supplierId, storeId: placement.storeId, amount }));
  const results = await evaluateOrders(ruleReadingOf(c), c.var.principal.tenantId, orders);
  return { orders, results, blocked: results.some((result) => !result.allowed) };
}

/**
 * An order below its minimum creates nothing but is recorded: the order.blocked event and, in the
 * same batch, its quota orders as facts (what an impact replay reads) and the request's Idempotency-Key
 * claim marked with the event (a retry after a cut-off is not recorded twice). Outside the Operation's
 * Durable Object: it changes no Operation state, so it need not wait behind the Operation's writes.
 */
async function blockOrder(c: RequestContext, placement: Placement, quotas: QuotaVerdict): Promise<never> {
  const { principal } = c.var;
  const record = { id: newId(idPrefixes.event), at: nowIso() };
  const event = appendEvent(c.var.db, {
    ...record,
    tenantId: principal.tenantId,
    type: "order.blocked",
    actor: actorOf(principal),
    operationId: placement.operationId,
    data: {
      reason: "quota_min_not_met",
      accountId: placement.accountId,
      cartId: placement.cartId,
      storeId: placement.storeId,
      orders: quotas.orders,
      results: quotas.results,
    },
  });
  // The claim is marked with the event: a retry after a cut-off answers 409 naming it, never a second refusal on record.
  const claim = markClaimCommitted(c.var.db, principal.tenantId, c.var.requestId, record.id);
  const refusal = { tenantId: principal.tenantId, operationId: placement.operationId, accountId: placement.accountId, at: record.at, reason: "quota" as const };
  await runBatch(c.var.db, [event, ...quotaOrderFactRows(principal.tenantId, record, quotas.orders), ...refusalStatements(refusal), claim]);
  const which = quotas.orders
    .filter((_, i) => !quotas.results[i].allowed)
    .map((order) => (order.supplierId === null ? "the lines without a supplier" : `supplier ${order.supplierId}`));
  throw new ApiError("quota_min_not_met", `The order is below the effective minimum for ${which.join(", ")}; see results[] (one per orders[] entry).`, {
    results: quotas.results,
    orders: quotas.orders,
  });
}
