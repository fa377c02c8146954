import { it } from "vitest";
import { ruleIndexCache } from "../../src/quotas/rule-index-cache";
import { call, issueKey, newTenant } from "../helpers/client";
it("probe", async () => {
  const op = await newTenant();
  for (let i = 0; i < 20; i++) await call(op, "POST", "/v1/buying-policies/quotas/rules", { body: { accountId: `A${i}`, minimum: i } });
  const account = await issueKey(op.tenantId, "ACCOUNT", "u1");
  const E = "/v1/buying-policies/quotas/evaluate";
  const body = { orders: [{ accountId: "A5", amount: 1 }] };
  for (let round = 0; round < 3; round++) {
    const s0 = { ...ruleIndexCache.stats };
    let t = Date.now();
    for (let i = 0; i < 300; i++) await call(account, "POST", E, { body });
    const a = Date.now() - t;
    const s1 = { ...ruleIndexCache.stats };
    t = Date.now();
    for (let i = 0; i < 300; i++) await call(account, "POST", E, { body, query: { explain: "true" } });
    const b = Date.now() - t;
    console.log("evaluate", a / 300, "403", b / 300, JSON.stringify(s0), JSON.stringify(s1));
  }
});
