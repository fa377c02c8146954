import { afterEach, describe, expect, it, vi } from "vitest";
import { ruleIndexCache } from "../../src/quotas/rule-index-cache";
import { expectStatus, newTenant, type Caller, callRoute } from "../helpers/client";
import { routes } from "../helpers/routes";
import { tenantDb } from "../helpers/shards";

const RULE_COUNT = 300;
const IN_FLIGHT = 16;
const ROUNDS = 24;

const supplierOf = (rule: { accountId: string }) => `S${Number(rule.accountId.slice(1)) % 7}`;

interface Failure {
  status: number;
  contentType: string | null;
  requestId: string | null;
  body: string;
}

async function seedRules(op: Caller): Promise<{ id: string; accountId: string }[]> {
  const rules: { id: string; accountId: string }[] = [];
  for (let i = 0; i < RULE_COUNT; i += 50) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(50, RULE_COUNT - i) }, (_, j) =>
        callRoute(op, routes.createRule, { body: { accountId: `A${i + j}`, supplierId: `S${(i + j) % 7}`, minimum: 1000 + i + j } }),
      ),
    );
    rules.push(...batch.map((response, j) => ({ id: expectStatus(response, 201).id, accountId: `A${i + j}` })));
  }
  return rules;
}

/** A write as another Worker instance would make it: this isolate's cache only learns of it by reading D1. */
async function foreignWrite(tenantId: string, ruleId: string, minimum: number) {
  const db = await tenantDb(tenantId);
  await db.batch([
    db.prepare("update quota_rules set minimum = ? where tenant_id = ? and id = ?").bind(minimum, tenantId, ruleId),
    db.prepare("update tenants set rules_version = rules_version + 1 where id = ?").bind(tenantId),
  ]);
}

afterEach(() => vi.restoreAllMocks());

describe("quota evaluation under concurrent load and rule changes", () => {
  it("answers every evaluation with 200 JSON while rules change here and elsewhere, and ends on the last change", async () => {
    const op = await newTenant();
    const rules = await seedRules(op);
    const failures: Failure[] = [];
    let evaluations = 0;

    const evaluate = async (n: number) => {
      const response = await callRoute(op, routes.evaluateQuotas, {
        body: {
          orders: [
            { accountId: `A${n}`, supplierId: `S${n % 7}`, amount: 1500 },
            { accountId: `B${n}`, amount: 10 },
          ],
        },
      });
      evaluations++;
      const contentType = response.headers.get("content-type");
      if (response.status !== 200 || !contentType?.startsWith("application/json") || response.body?.results?.length !== 2) {
        failures.push({ status: response.status, contentType, requestId: response.headers.get("x-request-id"), body: response.text.slice(0, 300) });
      }
    };
    // Each round: IN_FLIGHT evaluations at once, racing a rule write through the API (which this
    // isolate applies to its index at once) and a write from "elsewhere" (which evaluations in flight
    // must read from D1 themselves); every third round the index is dropped, so all of them reload.
    for (let round = 0; round < ROUNDS; round++) {
      const local = rules[round % 20];
      if (round % 3 === 0) ruleIndexCache.forget(op.tenantId);
      await Promise.all([
        ...Array.from({ length: IN_FLIGHT }, (_, w) => evaluate((round * IN_FLIGHT + w * 7) % RULE_COUNT)),
        callRoute(op, routes.updateRule, {
          params: { ruleId: local.id },
          body: { accountId: local.accountId, supplierId: supplierOf(local), minimum: 5000 + round },
        }).then((response) => expectStatus(response, 200)),
        foreignWrite(op.tenantId, rules[100 + (round % 20)].id, 7000 + round),
      ]);
    }
    const localWrites = ROUNDS;
    const foreignWrites = ROUNDS;

    expect(failures.slice(0, 5)).toEqual([]);
    expect(evaluations).toBe(ROUNDS * IN_FLIGHT);

    // The last write of each kind is what evaluation answers now (the foreign one within the 1 s recheck).
    const lastLocal = rules[(localWrites - 1) % 20];
    const lastForeign = rules[100 + ((foreignWrites - 1) % 20)];
    // The foreign write is seen once the 1 s recheck is due: the clock is moved past it rather than waited
    // out, and the check then runs after an answer, so evaluations are repeated until one reflects it.
    const now = Date.now();
    vi.spyOn(Date, "now").mockReturnValue(now + 1_001);
    await vi.waitFor(
      async () => {
        const { results } = expectStatus(
          await callRoute(op, routes.evaluateQuotas, {
            body: {
              orders: [
                { accountId: lastLocal.accountId, supplierId: supplierOf(lastLocal), amount: 0 },
                { accountId: lastForeign.accountId, supplierId: supplierOf(lastForeign), amount: 0 },
              ],
            },
          }),
          200,
        );
        expect(results[0]).toMatchObject({ effectiveMinimum: 5000 + localWrites - 1, source: { ruleId: lastLocal.id } });
        expect(results[1]).toMatchObject({ effectiveMinimum: 7000 + foreignWrites - 1, source: { ruleId: lastForeign.id } });
      },
      { timeout: 5_000, interval: 50 },
    );
  }, 180_000);
});
