import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { archiveHistory } from "../../src/history/archive/job";
import { deleteTenant, TenantDeleteRefused } from "../../src/tenants/delete";
import { countTenantRows } from "../../src/tenants/move";
import { call, newTenant } from "../helpers/client";
import { runJourney } from "./journey";

/*
 * Deleting a tenant (npm run tenant:delete) removes everything it had: its keys and directory entry,
 * its rows on its shard, and its archived history's objects in the bucket (the local R2 here), even
 * one written by an archive run that stopped before indexing it. Its neighbours keep theirs.
 */

const objectsOf = async (tenantId: string) => (await env.HISTORY_ARCHIVE.list({ prefix: `history/${tenantId}/` })).objects.map((object) => object.key).sort();
const indexed = async (tenantId: string) =>
  (await env.SHARD_1.prepare("select count(*) as n from history_archive where tenant_id = ?").bind(tenantId).first<{ n: number }>())!.n;
const directoryEntries = async (tenantId: string) =>
  (await env.CONTROL.prepare("select (select count(*) from tenant_directory where tenant_id = ?1) + (select count(*) from api_keys where tenant_id = ?1) as n")
    .bind(tenantId)
    .first<{ n: number }>())!.n;

describe("deleting a tenant", () => {
  it("deletes its keys, directory entry, shard rows and archived objects (an unindexed one too); a stopped deletion finishes when run again", async () => {
    const gone = await runJourney(await newTenant({ shard: "SHARD_1" }));
    const neighbour = await runJourney(await newTenant({ shard: "SHARD_1" }));
    // The journey archived its history half-way; the rest is left half-moved: an object written, never indexed.
    const crashed = await archiveHistory(env, {
      tenantId: gone.operator.tenantId,
      archiveBefore: Date.now() + 1,
      afterObjectVerified: () => {
        throw new Error("crash after the object was written");
      },
    });
    expect(crashed).toMatchObject({ objects: 0, failed: 1 });
    const objects = await objectsOf(gone.operator.tenantId);
    expect(objects).toHaveLength((await indexed(gone.operator.tenantId)) + 1);
    const neighbourRows = await countTenantRows(env, "SHARD_1", neighbour.operator.tenantId);
    const neighbourObjects = await objectsOf(neighbour.operator.tenantId);
    expect(neighbourObjects.length).toBeGreaterThan(0);

    // A deletion that stopped right after its first step: the directory has forgotten the tenant, its rows and objects are still there.
    await env.CONTROL.batch([
      env.CONTROL.prepare("delete from api_keys where tenant_id = ?").bind(gone.operator.tenantId),
      env.CONTROL.prepare("delete from tenant_directory where tenant_id = ?").bind(gone.operator.tenantId),
    ]);
    const report = await deleteTenant(env, gone.operator.tenantId);

    expect(report).toMatchObject({ tenantId: gone.operator.tenantId, shard: "SHARD_1", keys: 0, objects: objects.length });
    expect(report.rows).toBeGreaterThan(0);
    expect(await objectsOf(gone.operator.tenantId)).toEqual([]);
    expect(Object.entries(await countTenantRows(env, "SHARD_1", gone.operator.tenantId)).filter(([, rows]) => rows > 0)).toEqual([]);
    expect(await directoryEntries(gone.operator.tenantId)).toBe(0);
    await expect(deleteTenant(env, gone.operator.tenantId)).rejects.toThrow(TenantDeleteRefused);

    // The neighbour on the same shard keeps everything, and its archived history reads as before.
    expect(await countTenantRows(env, "SHARD_1", neighbour.operator.tenantId)).toEqual(neighbourRows);
    expect(await objectsOf(neighbour.operator.tenantId)).toEqual(neighbourObjects);
    expect((await call(neighbour.operator, "GET", "/v1/history")).status).toBe(200);
  });

  it("deletes a tenant in one run: it stops answering at once, its keys and objects are gone", async () => {
    const op = await newTenant({ shard: "SHARD_2" });
    const journey = await runJourney(op);
    const objects = await objectsOf(op.tenantId);
    expect(objects.length).toBeGreaterThan(0);
    const keys = (await env.CONTROL.prepare("select count(*) as n from api_keys where tenant_id = ?").bind(op.tenantId).first<{ n: number }>())!.n;

    expect(await deleteTenant(env, op.tenantId)).toMatchObject({ shard: "SHARD_2", keys, objects: objects.length });
    expect(await objectsOf(op.tenantId)).toEqual([]);
    expect(Object.values(await countTenantRows(env, "SHARD_2", op.tenantId)).every((rows) => rows === 0)).toBe(true);
    expect((await call(journey.account, "GET", "/v1/history")).status).toBe(401);
  });
});
