import { z } from "zod";
import { commaList, pageQueryShape, type ListDefinition } from "../platform/pagination";
import { amount, eitherBody, externalKey, keyedBatch, pathId, quantity } from "../platform/fields";
import { orders } from "../platform/tables";

export const orderList: ListDefinition = {
  name: "orders",
  sortable: { createdAt: orders.createdAt },
  id: orders.id,
  defaultSort: "-createdAt",
  maxLimit: 500,
};

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

export const cartBody = z
  .strictObject({
    operationId: pathId("The Operation the cart buys from."),
    accountId: externalKey.describe("The buying account."),
    storeId: externalKey.nullable().optional().describe("Defaults to the svc-store header."),
    lines: keyedBatch(orderLine, { field: "variantExternalId", keyOf: (line) => line.variantExternalId, what: "line" }).describe(`1–${MAX_ORDER_LINES} lines, each variantExternalId once.`),
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
  });
export type CartBody = z.output<typeof cartBody>;

const orderFromCartBody = z.strictObject({ cartId: pathId("Orders this cart as it is.") });

export const orderBody = eitherBody("cartId", orderFromCartBody, cartBody).describe(
  "Either { cartId } to order a cart, or a cart body to order directly.",
);

export const cartIdParam = z.strictObject({ cartId: pathId("The cart's id.") });
export const orderIdParam = z.strictObject({ orderId: pathId("The order's id.") });

export const listOrdersQuery = z.strictObject({
  ...pageQueryShape(orderList),
  accountIds: commaList("Comma list of account ids."),
  accountId: commaList("Alias of accountIds."),
});
export type ListOrdersQuery = z.output<typeof listOrdersQuery>;

const storedLine = z.object({
  variantExternalId: z.string(),
  quantity: z.number().int(),
  unitPrice: z.number().int(),
  supplierId: z.string().nullable(),
});

export const cartRepresentation = z.object({
  id: z.string(),
  operationId: z.string(),
  accountId: z.string(),
  storeId: z.string().nullable(),
  lines: z.array(storedLine),
  total: z.number().int().describe("Σ quantity × unitPrice, minor currency units."),
  createdBy: z.string(),
  createdAt: z.string(),
});

export const orderRepresentation = cartRepresentation.extend({
  cartId: z.string().nullable().describe("The cart this order was placed from, if any."),
});
