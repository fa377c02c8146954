import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ShardName } from "../../src/platform/core/shards";
import { shardNames } from "../../src/platform/core/shards";
import { mintSignedKey } from "../../src/platform/core/key-format.mjs";
import { PLACEMENT_CACHE_TTL_MS } from "../../src/platform/data/tenancy";
import { createTenant } from "../../src/tenants/placement";
import { expectProblem, expectStatus, issueKey, newTenant, setStatus, uniqueId, callRoute } from "../helpers/client";
import { routes } from "../helpers/routes";
import { laggingControl } from "../helpers/lagging-control";
import { shardOf } from "../helpers/shards";

afterEach(() => vi.restoreAllMocks());

async function tenantsPerShard(): Promise<Map<string, number>> {
  const { results } = await env.CONTROL.prepare("select shard, count(*) as n from tenant_directory group by shard").all<{ shard: string; n: number }>();
  return new Map(shardNames(env).map((shard) => [shard, results.find((row) => row.shard === shard)?.n ?? 0]));
}

describe("placing tenants on shards", () => {
  it("puts a new tenant on the shard with the fewest tenants", async () => {
    // Tip the balance first, so the expected shard is not simply the first one.
    for (let i = 0; i < 3; i++) await createTenant(env, { tenantId: uniqueId("heavy"), defaultLocale: "en", shard: "SHARD_1" });
    for (let round = 0; round < 4; round++) {
      const load = await tenantsPerShard();
      const fewest = Math.min(...load.values());
      const expected = [...load].find(([, tenants]) => tenants === fewest)![0];
      const placed = await createTenant(env, { tenantId: uniqueId("auto"), defaultLocale: "en" });
      expect(placed.shard).toBe(expected);
    }
  });

  it("puts it on the shard named, refuses a name that is not a shard, and leaves an existing tenant where it is", async () => {
    const tenantId = uniqueId("named");
    expect((await createTenant(env, { tenantId, defaultLocale: "fr", shard: "SHARD_2" })).shard).toBe("SHARD_2");
    expect(await shardOf(tenantId)).toBe("SHARD_2");
    const again = await createTenant(env, { tenantId, defaultLocale: "de", shard: "SHARD_1" });
    expect(again).toEqual({ shard: "SHARD_2", state: "ACTIVE", defaultLocale: "fr" });
    await expect(createTenant(env, { tenantId: uniqueId("nowhere"), defaultLocale: "en", shard: "SHARD_9" as ShardName })).rejects.toThrow(/not a shard/);
    const shardRow = await env.SHARD_2.prepare("select id from tenants where id = ?").bind(tenantId).first();
    expect(shardRow).not.toBeNull();
  });

  it("serves the tenant's default locale from its directory entry", async () => {
    const op = await newTenant({ defaultLocale: "fr", shard: "SHARD_2" });
    const created = expectStatus(
      await callRoute(op, routes.createOperation, {
        body: { code: uniqueId("OP"), name: { fr: "Soldes", en: "Sale" }, type: "PUBLIC", startDate: "2020-01-01T00:00:00Z", endDate: "2099-12-31T23:59:59Z" },
      }),
      201,
    );
    expectStatus(
      await callRoute(op, routes.putLines, { params: { operationId: created.id }, body: [{ variantExternalId: "SKU-1", minQuantity: 0, maxQuantity: 1 }] }),
      200,
    );
    expectStatus(await setStatus(op, created.id, "ACTIVE"), 200);
    const account = await issueKey(op.tenantId, "ACCOUNT", uniqueId("u"));
    const front = expectStatus(await callRoute(account, routes.getFrontOperation, { params: { operationId: created.id } }), 200);
    expect(front.name).toBe("Soldes");
  });

  it("keeps a placement per instance and follows a directory change made elsewhere within its cache lifetime", async () => {
    expect(PLACEMENT_CACHE_TTL_MS).toBeLessThanOrEqual(10_000);
    const op = await newTenant({ shard: "SHARD_1" });
    const write = () => callRoute(op, routes.putQuotaDefault, { body: { minimum: 1 } });
    expectStatus(await write(), 200);
    // Another instance (the move command) marks the tenant MOVING; this instance has ACTIVE cached.
    await env.CONTROL.prepare("update tenant_directory set state = 'MOVING', moving_to = 'SHARD_2' where tenant_id = ?").bind(op.tenantId).run();
    const changedAt = Date.now();
    expectStatus(await write(), 200);
    // The clock moved past the cache's lifetime, not waited out: the next write must see the change.
    vi.spyOn(Date, "now").mockReturnValue(changedAt + PLACEMENT_CACHE_TTL_MS + 1);
    const answer = await write();
    expectProblem(answer, 503, "tenant_moving");
    expect(answer.headers.get("retry-after")).toBe("1");
    // Reads keep working while MOVING.
    expectStatus(await callRoute(op, routes.getQuotaDefault), 200);
  });

  it("finds a key and a tenant created a moment ago on the primary when the nearest replica has not seen them yet", async () => {
    const op = await newTenant({ shard: "SHARD_2" });
    // A control database whose replicas lag: a session started anywhere sees no rows; the primary sees all.
    const { binding: lagging, reads } = laggingControl();
    const answer = await callRoute(op, routes.getQuotaDefault, { env: { CONTROL: lagging } });
    expectStatus(answer, 200);
    expect(reads.primary).toBeGreaterThan(0);
    // An unknown key issued a moment ago (as its signature says) is still unknown after asking the primary.
    expectProblem(
      await callRoute({ ...op, key: await mintSignedKey(env.KEY_SIGNING_SECRET) }, routes.getQuotaDefault, { env: { CONTROL: lagging } }),
      401,
      "unauthorized",
    );
  });
});
