import { describe, expect, it } from "vitest";
import { callRoute, expectStatus, newTenant } from "../helpers/client";
import { laggingReplica } from "../helpers/lagging-control";
import { routes } from "../helpers/routes";
import { shardOf, tenantDb } from "../helpers/shards";

/*
 * A rule write is computed from what it reads (the rule as it is, for its event's "before" and its
 * guard), so it reads the tenant's primary, never a replica that may not have the rule yet: behind
 * a replica that sees nothing, the single-rule writes still find the rule, as the bulk ones do.
 */
describe("single-rule writes read the primary", () => {
  async function ruleBehindLaggingReplica() {
    const op = await newTenant();
    const rule = expectStatus(await callRoute(op, routes.createRule, { body: { accountId: "A1", minimum: 100 } }), 201);
    const shard = await shardOf(op.tenantId);
    const lagging = laggingReplica(await tenantDb(op.tenantId));
    return { op, rule, lagging, env: { [shard]: lagging.binding } };
  }

  it("replaces a rule the replica does not show yet", async () => {
    const { op, rule, lagging, env } = await ruleBehindLaggingReplica();
    const replaced = expectStatus(await callRoute(op, routes.updateRule, { params: { ruleId: rule.id }, body: { accountId: "A1", minimum: 250 }, env }), 200);
    expect(replaced).toMatchObject({ id: rule.id, minimum: 250 });
    expect(lagging.reads).toMatchObject({ replica: 0 });
    expect(expectStatus(await callRoute(op, routes.getRule, { params: { ruleId: rule.id } }), 200)).toMatchObject({ minimum: 250 });
  });

  it("deletes a rule the replica does not show yet", async () => {
    const { op, rule, lagging, env } = await ruleBehindLaggingReplica();
    expectStatus(await callRoute(op, routes.deleteRule, { params: { ruleId: rule.id }, env }), 204);
    expect(lagging.reads).toMatchObject({ replica: 0 });
    expect((await callRoute(op, routes.getRule, { params: { ruleId: rule.id } })).status).toBe(404);
  });
});
