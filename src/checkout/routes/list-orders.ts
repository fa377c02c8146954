import { acceptsCsv, csvListResponse } from "../../platform/http/csv";
import { listContextOf } from "../../platform/http/context";
import { mapPage } from "../../platform/data/pagination";
import { defineRoute } from "../../platform/http/routes";
import { operationIdParam } from "../../platform/schema/fields";
import { listOrders, toOrderRepresentation } from "../queries";
import { listOrdersQuery, ORDER_CSV_COLUMNS, orderList, orderPage } from "../schemas";

export default defineRoute(
  {
    method: "get",
    path: "/v1/operations/:operationId/orders",
    operationId: "listOrders",
    summary: "List an Operation's orders",
    description:
      "Newest first unless sort says otherwise (placedAt, amount, accountId). Filters combine with AND: accountIds, status, from and to (on placedAt, both included, to the second), variantExternalId (orders carrying that line). Accept: text/csv answers the whole filtered, sorted list as one CSV (formula cells neutralized). ACCOUNT keys see the orders of their own accounts only.",
    tag: "Carts and orders",
    roles: ["OPERATOR", "ACCOUNT"],
    params: operationIdParam,
    query: listOrdersQuery,
    responses: { 200: { description: "One page.", schema: orderPage } },
    csvExport: { columns: ORDER_CSV_COLUMNS },
    errors: ["not_found", "invalid_next_token"],
  },
  async function handleListOrders(c, { params, query }) {
    if (acceptsCsv(c.req.header("accept"))) {
      return csvListResponse({
        columns: ORDER_CSV_COLUMNS,
        filename: `orders-${params.operationId}.csv`,
        readPage: (nextToken) => listOrders(listContextOf(c), params.operationId, { ...query, limit: orderList.maxLimit, nextToken }),
        toRow: ({ row }) => [
          row.id,
          row.createdAt,
          row.accountId,
          row.status,
          row.total,
          row.lines.length,
          row.storeId,
          row.cartId,
          row.cancelledAt,
          row.cancelReason,
        ],
      });
    }
    const page = await listOrders(listContextOf(c), params.operationId, query);
    return c.json(mapPage(page, (item) => toOrderRepresentation(item.row)));
  },
);
