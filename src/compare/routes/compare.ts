import { findVisibleOrderSummary } from "../../checkout/queries";
import { getVisibleOperation } from "../../operations/queries";
import { ApiError } from "../../platform/core/errors";
import { defineRoute } from "../../platform/http/routes";
import { operationIdParam } from "../../platform/schema/fields";
import { findLineIssues, type LineIssue, type OrderLinesSource } from "../../lines/order-fit";
import { compareBody, compareResponse, MAX_COMPARE_LINES } from "../schemas";

function summarize(checked: number, issues: LineIssue[]) {
  const count = (code: LineIssue["code"]) => issues.filter((issue) => issue.code === code).length;
  const belowMin = count("below_min");
  const aboveMax = count("above_max");
  const notInOperation = count("not_in_operation");
  const incrementMismatch = count("increment_mismatch");
  return {
    ok: issues.length === 0,
    summary: {
      checked,
      inBounds: checked - belowMin - aboveMax - notInOperation,
      belowMin,
      aboveMax,
      notInOperation,
      missingRequired: count("missing_required"),
      incrementMismatch,
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
    errors: ["batch_too_large", "not_found"],
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
    return c.json(summarize(checked, issues));
  },
);
