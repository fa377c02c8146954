import putLinesRoute from "../../src/lines/routes/put";
import { type Caller, callRoute, expectStatus } from "../helpers/client";

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
  return expectStatus(await callRoute(caller, putLinesRoute, { params: { operationId }, body: lines }), 200);
}
