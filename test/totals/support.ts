// What the totals tests share: the totals an Operation's orders and refusals should add up to, recomputed from them.
import { expect } from "vitest";
import { callRoute, collectPages, eventsOf, expectStatus, type Caller } from "../helpers/client";
import { routes } from "../helpers/routes";

interface Figures {
  orders: number;
  amount: number;
  cancelled: number;
  quota: number;
  allocation: number;
}

/** Every figure the totals routes answer, recomputed from the orders and the order.blocked events. */
export async function recomputedFromOrders(op: Caller, operationId: string) {
  const orders = (await collectPages(op, routes.listOrders, { params: { operationId }, query: { limit: "500" } })).items;
  const blocked = (await eventsOf(op)).filter((event) => event.type === "order.blocked" && event.operationId === operationId);
  const byAccount = new Map<string, Figures>();
  const byDay = new Map<string, { orders: number; amount: number; cancellations: number; cancelledAmount: number; quota: number; allocation: number }>();
  const lines = new Map<string, { orderedQuantity: number; orderCount: number }>();
  const account = (id: string) => byAccount.get(id) ?? byAccount.set(id, { orders: 0, amount: 0, cancelled: 0, quota: 0, allocation: 0 }).get(id)!;
  const day = (at: string) =>
    byDay.get(at.slice(0, 10)) ??
    byDay.set(at.slice(0, 10), { orders: 0, amount: 0, cancellations: 0, cancelledAmount: 0, quota: 0, allocation: 0 }).get(at.slice(0, 10))!;
  for (const order of orders) {
    day(order.placedAt).orders++;
    day(order.placedAt).amount += order.total;
    if (order.status === "CANCELLED") {
      account(order.accountId).cancelled++;
      day(order.cancelledAt!).cancellations++;
      day(order.cancelledAt!).cancelledAmount += order.total;
      continue;
    }
    account(order.accountId).orders++;
    account(order.accountId).amount += order.total;
    for (const line of order.lines) {
      const figures = lines.get(line.variantExternalId) ?? { orderedQuantity: 0, orderCount: 0 };
      lines.set(line.variantExternalId, { orderedQuantity: figures.orderedQuantity + line.quantity, orderCount: figures.orderCount + 1 });
    }
  }
  const reasonOf = (event: (typeof blocked)[number]) => ((event.data as { reason?: string }).reason === "allocation_exceeded" ? "allocation" : "quota");
  for (const event of blocked) {
    account((event.data as { accountId: string }).accountId)[reasonOf(event)]++;
    day(event.at)[reasonOf(event)]++;
  }
  const placed = orders.filter((order) => order.status === "PLACED");
  return {
    totals: {
      orders: placed.length,
      cancelled: orders.length - placed.length,
      accounts: [...byAccount.values()].filter((figures) => figures.orders > 0).length,
      amount: placed.reduce((sum, order) => sum + order.total, 0),
      refusals: {
        quota: blocked.filter((event) => reasonOf(event) === "quota").length,
        allocation: blocked.filter((event) => reasonOf(event) === "allocation").length,
      },
    },
    byAccount,
    byDay,
    lines,
  };
}

/** The totals, the accounts' totals, the daily totals and the lines' figures all equal what the orders add up to. */
export async function expectTotalsExact(op: Caller, operationId: string) {
  const expected = await recomputedFromOrders(op, operationId);
  const params = { operationId };
  const totals = expectStatus(await callRoute(op, routes.getOperationTotals, { params }), 200);
  expect(totals).toMatchObject(expected.totals);
  const accounts = (await collectPages(op, routes.listAccountTotals, { params })).items;
  const withFigures = accounts.filter((row) => row.orders || row.cancelled || row.refusals.quota || row.refusals.allocation);
  const accountFigures = (row: (typeof accounts)[number]) => ({
    orders: row.orders,
    amount: row.amount,
    cancelled: row.cancelled,
    quota: row.refusals.quota,
    allocation: row.refusals.allocation,
  });
  expect(Object.fromEntries(withFigures.map((row) => [row.accountId, accountFigures(row)]))).toEqual(
    Object.fromEntries([...expected.byAccount].filter(([, figures]) => figures.orders || figures.cancelled || figures.quota || figures.allocation)),
  );
  const days = [...expected.byDay.keys()].sort();
  if (days.length) {
    const daily = expectStatus(await callRoute(op, routes.getDailyTotals, { params, query: { from: days[0], to: days.at(-1)! } }), 200);
    const nonZero = daily.items.filter((item) => item.orders || item.cancellations || item.refusals.quota || item.refusals.allocation);
    const dayFigures = (item: (typeof nonZero)[number]) => ({
      orders: item.orders,
      amount: item.amount,
      cancellations: item.cancellations,
      cancelledAmount: item.cancelledAmount,
      quota: item.refusals.quota,
      allocation: item.refusals.allocation,
    });
    expect(Object.fromEntries(nonZero.map((item) => [item.day, dayFigures(item)]))).toEqual(Object.fromEntries(expected.byDay));
  }
  const lines = (await collectPages(op, routes.listLines, { params })).items;
  for (const line of lines) {
    expect({ [line.variantExternalId]: [line.orderedQuantity, line.orderCount] }).toEqual({
      [line.variantExternalId]: [expected.lines.get(line.variantExternalId)?.orderedQuantity ?? 0, expected.lines.get(line.variantExternalId)?.orderCount ?? 0],
    });
  }
  return expected;
}
