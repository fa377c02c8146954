// Sets up directories and Operations ready to take carts and orders, through the public routes only.
import { attachPut } from "../../src/attachments/routes/attach";
import putLinesRoute from "../../src/lines/routes/put";
import createOperationRoute from "../../src/operations/routes/create";
import { callRoute, expectStatus, issueKey, setStatus, uniqueId, type Caller } from "./client";
import { routes } from "./routes";

/** Dates that include now for the rest of this century. */
export const OPEN_DATES = { startDate: "2020-01-01T00:00:00Z", endDate: "2099-12-31T23:59:59Z" };

export interface LineSpec {
  variantExternalId: string;
  minQuantity: number;
  maxQuantity: number;
  variantName?: Record<string, string>;
  recommendedQuantity?: number | null;
  quantityIncrement?: number;
}

export const DEFAULT_LINES: LineSpec[] = [
  { variantExternalId: "SKU-A", minQuantity: 0, maxQuantity: 10 },
  { variantExternalId: "SKU-B", minQuantity: 2, maxQuantity: 5 },
  { variantExternalId: "SKU-C", minQuantity: 1, maxQuantity: 100 },
];

export async function putDirectory(caller: Caller, accounts: unknown[]) {
  return expectStatus(await callRoute(caller, routes.putDirectory, { body: accounts }), 200);
}

/** Directory accounts in short: the name defaults to the accountId, users to none. */
export async function putAccounts(operator: Caller, accounts: { accountId: string; name?: string; users?: { userId: string; email: string }[] }[]) {
  await putDirectory(
    operator,
    accounts.map((a) => ({ accountId: a.accountId, name: a.name ?? a.accountId, users: a.users ?? [] })),
  );
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
    await callRoute(operator, createOperationRoute, {
      body: { code: uniqueId("OP"), name: { en: "Spring", fr: "Printemps" }, type, ...OPEN_DATES, ...setup.overrides },
    }),
    201,
  );
  const operationId = created.id;
  const lines = setup.lines ?? DEFAULT_LINES;
  if (lines.length) expectStatus(await callRoute(operator, putLinesRoute, { params: { operationId }, body: lines }), 200);
  if (setup.attach?.length) {
    expectStatus(await callRoute(operator, attachPut, { params: { operationId }, body: setup.attach }), 200);
  }
  const status = setup.status ?? "ACTIVE";
  if (status !== "DRAFT") {
    expectStatus(await setStatus(operator, created.id, "ACTIVE"), 200);
    if (status === "INACTIVE") expectStatus(await setStatus(operator, created.id, "INACTIVE"), 200);
  }
  return created;
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

/** A line's own fields (what a PUT writes and a version keeps): without when it changed and what its orders and allocation add. */
export function ownLineFields<T extends Record<string, unknown>>(line: T) {
  const { updatedAt: _at, orderedQuantity: _ordered, orderCount: _orders, poolQuantity: _pool, maxPerAccount: _cap, poolRemaining: _left, ...own } = line;
  return own;
}
