import * as z from "zod";
import { commaEnumList, commaList, pageQueryShape } from "../platform/schema/list-query";
import type { ListDefinition } from "../platform/data/pagination";
import { amount, dateTime, eitherBody, externalKey, identifierText, keyedBatch, listEnvelope, pathId, quantity } from "../platform/schema/fields";
import { ORDER_STATUSES, orders } from "../operations/tables";
import { deprecatedAlias } from "../platform/http/deprecation";
import { evaluationResult } from "../quotas/schemas";

export const orderList: ListDefinition = {
  name: "orders",
  sortable: { placedAt: orders.createdAt, createdAt: orders.createdAt, amount: orders.total, accountId: orders.accountId },
  id: orders.id,
  defaultSort: "-createdAt",
  maxLimit: 500,
};

/** The columns of an orders CSV export: one row per order, amounts in minor units. */
export const ORDER_CSV_COLUMNS = ["id", "placedAt", "accountId", "status", "amount", "lineCount", "storeId", "cartId", "cancelledAt", "cancelReason"] as const;

/** Lines per cart or order: the Operation's own batch limit, and what one stored row holds comfortably. */
export const MAX_ORDER_LINES = 5000;

const orderLine = z.strictObject({
  variantExternalId: externalKey.describe("The Operation line this buys."),
  quantity,
  unitPrice: amount.describe("Price of one unit in minor currency units."),
  supplierId: externalKey.nullable().optional().describe("Lines of one supplier form one order for quota evaluation."),
});
export type OrderLineInput = z.output<typeof orderLine>;

/** Σ quantity × unitPrice, exactly: each is a safe integer, their product need not be. */
function exactTotal(lines: Pick<OrderLineInput, "quantity" | "unitPrice">[]): bigint {
  return lines.reduce((sum, line) => sum + BigInt(line.quantity) * BigInt(line.unitPrice), 0n);
}

/** The lines of the examples of a cart, sent and answered. */
const EXAMPLE_CART_LINES = [
  { variantExternalId: "SKU-1001-M", quantity: 6, unitPrice: 3500, supplierId: "sup-77" },
  { variantExternalId: "SKU-2040-S", quantity: 4, unitPrice: 5200, supplierId: "sup-91" },
];
export const cartBody = z
  .strictObject({
    operationId: pathId("The Operation the cart buys from."),
    accountId: externalKey.describe("The buying account."),
    storeId: externalKey.nullable().optional().describe("Defaults to the svc-store header."),
    lines: keyedBatch(orderLine, { field: "variantExternalId", keyOf: (line) => line.variantExternalId, what: "line" }).describe(
      `1–${MAX_ORDER_LINES} lines, each variantExternalId once.`,
    ),
  })
  .superRefine((body, ctx) => {
    if (exactTotal(body.lines) > BigInt(Number.MAX_SAFE_INTEGER)) {
      ctx.addIssue({
        code: "custom",
        path: ["lines"],
        message: "the total amount of the lines (Σ quantity × unitPrice) exceeds 2^53−1",
        params: { code: "amount_too_large" },
      });
    }
  })
  .meta({
    id: "CartCreate",
    examples: [
      {
        operationId: "op_01JQ3V8K2M5N7P9R1T3W5Y7Z9B",
        accountId: "acc-2001",
        storeId: "store-paris",
        lines: EXAMPLE_CART_LINES,
      },
    ],
  });
export type CartBody = z.output<typeof cartBody>;

const orderFromCartBody = z
  .strictObject({ cartId: pathId("Orders this cart as it is.") })
  .meta({ id: "OrderFromCart", examples: [{ cartId: "cart_01JQ5B7C9D1E3F5G7H9J1K3M5N" }] });

export const orderBody = eitherBody("cartId", orderFromCartBody, cartBody)
  .describe("Either { cartId } to order a cart, or a cart body to order directly.")
  .meta({ id: "OrderCreate", examples: [{ cartId: "cart_01JQ5B7C9D1E3F5G7H9J1K3M5N" }] });

export const cartIdParam = z.strictObject({ cartId: pathId("The cart's id.") });
export const orderIdParam = z.strictObject({ orderId: pathId("The order's id.") });

export const listOrdersQuery = z
  .strictObject({
    ...pageQueryShape(orderList),
    accountIds: commaList("Comma list of account ids."),
    accountId: deprecatedAlias(commaList("Alias of accountIds."), { since: "2026-11-23", use: "accountIds" }),
    status: commaEnumList(ORDER_STATUSES, "PLACED, CANCELLED or both (comma list)."),
    from: dateTime.optional().describe("Orders placed at or after this date-time."),
    to: dateTime.optional().describe("Orders placed at or before this date-time."),
    variantExternalId: externalKey.optional().describe("Only orders carrying this line."),
  })
  .refine((query) => query.from === undefined || query.to === undefined || query.from <= query.to, { message: "from must not be after to", path: ["from"] });
export type ListOrdersQuery = z.output<typeof listOrdersQuery>;

const storedLine = z
  .object({
    variantExternalId: z.string(),
    quantity: z.number().int(),
    unitPrice: z.number().int(),
    supplierId: z.string().nullable(),
  })
  .meta({ id: "OrderLine" });

const CART_EXAMPLE = {
  id: "cart_01JQ5B7C9D1E3F5G7H9J1K3M5N",
  operationId: "op_01JQ3V8K2M5N7P9R1T3W5Y7Z9B",
  accountId: "acc-2001",
  storeId: "store-paris",
  lines: EXAMPLE_CART_LINES,
  total: 41800,
  createdBy: "user:u-3001",
  createdAt: "2026-03-04T10:15:00Z",
};

export const cartRepresentation = z
  .object({
    id: z.string(),
    operationId: z.string(),
    accountId: z.string(),
    storeId: z.string().nullable(),
    lines: z.array(storedLine),
    total: z.number().int().describe("Σ quantity × unitPrice, minor currency units."),
    createdBy: z.string(),
    createdAt: z.string(),
  })
  .meta({ id: "Cart", examples: [CART_EXAMPLE] });

export const orderRepresentation = cartRepresentation
  .extend({
    cartId: z.string().nullable().describe("The cart this order was placed from, if any."),
    warnings: z
      .array(evaluationResult)
      .describe("The quota evaluation results (one per supplier order) the order fell short of a WARN minimum with; empty when none."),
    status: z.enum(ORDER_STATUSES).describe("PLACED, or CANCELLED: a cancelled order stays linked to its Operation but counts in no total."),
    placedAt: z.string().describe("When it was placed (its createdAt)."),
    cancelledAt: z.string().nullable(),
    cancelReason: z.string().nullable(),
    cancelledBy: z.string().nullable().describe("Who cancelled it, as actors are named."),
  })
  .meta({
    id: "Order",
    examples: [
      {
        ...CART_EXAMPLE,
        id: "ord_01JQ5C8D0E2F4G6H8J0K2M4N6P",
        cartId: CART_EXAMPLE.id,
        createdAt: "2026-03-04T10:20:00Z",
        warnings: [],
        status: "PLACED",
        placedAt: "2026-03-04T10:20:00Z",
        cancelledAt: null,
        cancelReason: null,
        cancelledBy: null,
      },
    ],
  });

/** The longest reason a cancellation keeps (as long as a change reason). */
export const MAX_CANCEL_REASON = 500;

export const cancelOrderBody = z
  .strictObject({ reason: identifierText(MAX_CANCEL_REASON, { trim: true }).optional().describe("Why; no control characters.") })
  .meta({ id: "OrderCancel", examples: [{ reason: "Customer asked to cancel by phone" }] });

export const orderPage = listEnvelope(orderRepresentation).meta({ id: "OrderPage" });
