import { findVisibleOrderSummary } from "../../checkout/queries";
import { getVisibleOperation } from "../../operations/queries";
import { ApiError } from "../../platform/core/errors";
import { defineRoute } from "../../platform/http/routes";
import { operationIdParam } from "../../platform/schema/fields";
import { findLineIssues, type LineIssue, type OrderLinesSource } from "../../lines/order-fit";
import { compareBody, compareResponse, MAX_COMPARE_LINES } from "../schemas";
import { readLineAllocations } from "../../allocation/queries";
import { shortfallsOf, type AllocationShortfall } from "../../allocation/remaining";
import { requirePermittedAccounts } from "../../directory/membership";
import { inShardBackground } from "../../platform/http/context";
import type { Db } from "../../platform/data/database";

function summarize(checked: number, issues: LineIssue[], shortfalls: AllocationShortfall[]) {
  const count = (code: LineIssue["code"]) => issues.filter((issue) => issue.code === code).length;
  const belowMin = count("below_min");
  const aboveMax = count("above_max");
  const notInOperation = count("not_in_operation");
  const incrementMismatch = count("increment_mismatch");
  return {
    ok: issues.length === 0 && shortfalls.length === 0,
    summary: {
      checked,
      inBounds: checked - belowMin - aboveMax - notInOperation,
      belowMin,
      aboveMax,
      notInOperation,
      missingRequired: count("missing_required"),
      incrementMismatch,
      allocationExceeded: shortfalls.length,
    },
    issues: issues.map(({ variantExternalId, code, quantity, minQuantity, maxQuantity, quantityIncrement }) => ({
      variantExternalId,
      code,
      quantity,
      minQuantity,
      maxQuantity,
      ...(code === "increment_mismatch" && { quantityIncrement }),
    })),
  };
}

/**
 * The lines sent that ask more than is left of their pool or, with `accountId`, of its cap (as an
 * order's placement would refuse them; a line with a bounds issue is left to it).
 */
async function allocationIssues(
  db: Db,
  operationId: string,
  body: { lines: { variantExternalId: string; quantity: number }[]; accountId?: string },
  issues: LineIssue[],
) {
  const flagged = new Set(issues.map((issue) => issue.variantExternalId));
  const lines = body.lines.filter((line) => !flagged.has(line.variantExternalId));
  const allocations = await readLineAllocations(
    db,
    operationId,
    body.accountId ?? "",
    lines.map((line) => line.variantExternalId),
  );
  // Without an account, only the pools: no account's cap.
  if (body.accountId === undefined) for (const line of allocations.values()) line.cap = null;
  return shortfallsOf(lines, allocations);
}

export default defineRoute(
  {
    method: "post",
    path: "/v1/operations/:operationId/compare",
    operationId: "compareOperations",
    summary: "Compare an order with the Operation",
    description:
      "Checks an order's lines (sent, or a placed order of this Operation) against the Operation's lines in the database: lines not in the Operation, below the minimum (a quantity of 0 included) or above the maximum, within the bounds but not a multiple of the line's quantityIncrement (increment_mismatch: still counted in inBounds; below_min and above_max take precedence), and the Operation lines with minQuantity > 0 the order leaves out. Answers only the discrepancies, with counts. Changes nothing.",
    tag: "Carts and orders",
    roles: ["OPERATOR", "ACCOUNT"],
    writes: false,
    params: operationIdParam,
    body: compareBody,
    batch: { maxItems: MAX_COMPARE_LINES, field: "lines" },
    responses: { 200: { description: "The comparison.", schema: compareResponse } },
    errors: ["batch_too_large", "not_found", "account_not_permitted"],
  },
  async function handleCompareOperations(c, { params, body }) {
    const db = c.var.db;
    const principal = c.var.principal;
    const operation = await getVisibleOperation(db, principal, params.operationId);
    let source: OrderLinesSource;
    let checked: number;
    if ("orderId" in body) {
      const order = await findVisibleOrderSummary(db, principal, body.orderId);
      if (order.operationId !== operation.id) throw new ApiError("not_found", `Order ${body.orderId} is not an order of Operation ${operation.id}.`);
      source = { orderId: order.id, tenantId: principal.tenantId };
      checked = order.lineCount;
    } else {
      source = { lines: body.lines };
      checked = body.lines.length;
    }
    const issues = await findLineIssues(db, operation.id, source, { missingRequired: true });
    // Whose caps: the caller's own account only (checked last, as everywhere).
    if ("accountId" in body && body.accountId !== undefined)
      await requirePermittedAccounts(db, principal, [body.accountId], "nothing was compared", inShardBackground(c));
    // A placed order's quantities are already in what is ordered: only lines sent are held to what is left.
    const shortfalls = "lines" in body ? await allocationIssues(db, operation.id, body, issues) : [];
    const answer = summarize(checked, issues, shortfalls);
    return c.json({
      ...answer,
      issues: [
        ...answer.issues,
        ...shortfalls.map(({ variantExternalId, requested, poolRemaining, accountRemaining, nearestValid }) => ({
          variantExternalId,
          code: "allocation_exceeded" as const,
          quantity: requested,
          minQuantity: null,
          maxQuantity: null,
          poolRemaining,
          accountRemaining,
          nearestValid,
        })),
      ],
    });
  },
);
