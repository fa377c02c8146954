import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { D1LimitExceeded, D1_MAX_BOUND_PARAMETERS, primaryDb, guardD1Limits, type DatabaseName } from "../../src/platform/data/database";
import { shardNames } from "../../src/platform/core/shards";
import { listOperations } from "../../src/operations/queries";
import { listOperationsQuery } from "../../src/operations/schemas";
import { callRoute, createOperation, expectStatus, newTenant } from "../helpers/client";
import { recordingDb, testPrincipal } from "../helpers/recording-db";
import { routes } from "../helpers/routes";

describe("D1 limits guard", () => {
  it("is on in tests, for the Worker's own database handles (control and every shard)", async () => {
    expect(env.D1_LIMITS_GUARD).toBe("on");
    const names: DatabaseName[] = ["CONTROL", ...shardNames(env)];
    expect(names.length).toBeGreaterThan(1);
    for (const name of names) {
      const db = primaryDb(env, name);
      const params = Array.from({ length: D1_MAX_BOUND_PARAMETERS + 1 }, (_, i) => i);
      const tooMany = `select 1 where 1 in (${params.map(() => "?").join(",")})`;
      expect(() => db.$client.prepare(tooMany).bind(...params), name).toThrow(D1LimitExceeded);
      const atLimit = params.slice(0, D1_MAX_BOUND_PARAMETERS);
      await expect(
        db.$client
          .prepare(`select 1 where 1 in (${atLimit.map(() => "?").join(",")})`)
          .bind(...atLimit)
          .all(),
        name,
      ).resolves.toBeTruthy();
      expect(() => guardD1Limits(env[name]).prepare(`select '${"x".repeat(100_001)}'`), name).toThrow(D1LimitExceeded);
    }
  });

  it("keeps a 500-value ids filter to one bound parameter, and the list answers", async () => {
    const op = await newTenant();
    const kept = await createOperation(op);
    const ids = [kept.id, ...Array.from({ length: 499 }, (_, i) => `op_${String(i).padStart(26, "0")}`)];

    const principal = await testPrincipal(op.tenantId);
    const { db, statements } = recordingDb(principal.shard);
    for (const idType of ["id", "code", "externalId"]) {
      await listOperations(
        { db, archive: env.HISTORY_ARCHIVE, secret: "s", principal },
        listOperationsQuery.parse({ ids: ids.join(","), idType, ownerIds: ids.join(",") }),
      );
    }
    for (const statement of statements) expect(statement.params.length).toBeLessThanOrEqual(10);
    expect(statements.length).toBe(3);
    for (const statement of statements) expect(statement.sql).toMatch(/json_each\(\?\)/);

    const page = expectStatus(await callRoute(op, routes.listOperations, { query: { ids: ids.join(",") } }), 200);
    expect(page.items.map((o) => o.id)).toEqual([kept.id]);
    const aliased = expectStatus(await callRoute(op, routes.listOperations, { query: { operationId: ids.join(","), ownerIds: ids.slice(1).join(",") } }), 200);
    expect(aliased.items).toEqual([]);
  });
});
