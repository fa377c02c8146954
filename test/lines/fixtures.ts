import { call, expectStatus, type Caller } from "../helpers/client";

export const sku = (i: number) => `SKU-${String(i).padStart(5, "0")}`;

/** `count` valid lines; `shape(i)` overrides fields of line i. */
export function makeLines(count: number, shape: (i: number) => Record<string, unknown> = () => ({}), from = 0) {
  return Array.from({ length: count }, (_, k) => {
    const i = from + k;
    return {
      variantExternalId: sku(i),
      variantId: `v_${i}`,
      variantName: { en: `Shirt ${i}`, fr: `Chemise ${i}` },
      minQuantity: i % 4,
      maxQuantity: 10 + (i % 7),
      recommendedQuantity: i % 5 === 0 ? null : 5,
      ...shape(i),
    };
  });
}

export async function putLines(caller: Caller, operationId: string, lines: unknown[]) {
  return expectStatus(await call(caller, "PUT", `/v1/operations/${operationId}/lines`, { body: lines }), 200);
}

export async function readOperation(caller: Caller, operationId: string) {
  return expectStatus(await call(caller, "GET", `/v1/operations/${operationId}`), 200);
}

export async function eventsOf(caller: Caller, operationId: string) {
  const items: any[] = [];
  let nextToken: string | undefined;
  do {
    const page = expectStatus(await call(caller, "GET", "/v1/events", { query: { operationId, limit: 500, nextToken } }), 200);
    items.push(...page.items);
    nextToken = page.nextToken ?? undefined;
  } while (nextToken);
  return items;
}
