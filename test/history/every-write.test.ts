import { describe, expect, it } from "vitest";
import { apiRoutes } from "../../src/app";
import { routeWrites } from "../../src/platform/http/routes";
import { call, newTenant, type Caller } from "../helpers/client";
import { tenantDb } from "../helpers/shards";
import { WRITES } from "../helpers/write-routes";

/*
 * Every registered route that writes records its change in the history, driven by apiRoutes: a write
 * route added later is held to it the day it is registered (its request is in WRITES, or the
 * idempotency races fail first). A placement (a cart, an order) links to an Operation and changes
 * none of its recorded fields, and a redelivery sends an event again and changes no subscription:
 * they are writes with no record, on purpose. A tenant move is another: it changes where the tenant's
 * rows live, none of them (the move keeps its own record, GET /v1/tenant/moves).
 */
const NO_RECORD = new Set([
  "POST /v1/carts",
  "POST /v1/orders",
  "POST /v1/webhooks/:webhookId/deliveries/:deliveryId/redeliver",
  "POST /v1/tenant/moves",
  "POST /v1/tenant/moves/:moveId/abort",
  "POST /v1/tenant/moves/:moveId/reverse",
]);

const keyOf = (spec: { method: string; path: string }) => `${spec.method.toUpperCase()} ${spec.path}`;

async function recordCount(op: Caller): Promise<number> {
  const db = await tenantDb(op.tenantId);
  const row = await db
    .prepare("select count(*) as n from change_records r join change_sets s on s.id = r.set_id where s.tenant_id = ?")
    .bind(op.tenantId)
    .first<{ n: number }>();
  return row!.n;
}

describe("change records, on every registered route that writes", () => {
  const writes = apiRoutes.filter(({ spec }) => routeWrites(spec));

  it("covers every write route", () => {
    expect(writes.length).toBeGreaterThan(20);
    expect(writes.map(({ spec }) => keyOf(spec)).filter((key) => !WRITES[key])).toEqual([]);
  });

  for (const { spec } of writes) {
    const key = keyOf(spec);
    it(`${key}: ${NO_RECORD.has(key) ? "records nothing (a placement, a redelivery, a move)" : "records its change in the same batch"}`, async () => {
      const op = await newTenant();
      const write = await WRITES[key](op);
      const before = await recordCount(op);
      const answer = await call(op, spec.method.toUpperCase(), write.path, { body: write.body, headers: write.headers });
      expect(answer.status, answer.text.slice(0, 300)).toBe(write.status);
      const added = (await recordCount(op)) - before;
      if (NO_RECORD.has(key)) expect(added).toBe(0);
      else expect(added, `${key} wrote no change record`).toBeGreaterThan(0);
    });
  }
});
