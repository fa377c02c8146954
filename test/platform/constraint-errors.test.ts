import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { primaryDb } from "../../src/platform/data/database";
import { runBatch, writeGuard } from "../../src/platform/data/sql";
import { constraintFailure, isWriteGuardFailure, violatesUnique, violatesUniqueIndex } from "../../src/platform/data/constraint-errors";
import { operations, orders } from "../../src/operations/tables";
import { quotaRules } from "../../src/quotas/tables";
import { sql } from "drizzle-orm";
import { createOperation, newTenant } from "../helpers/client";
import { shardOf } from "../helpers/shards";

/** The error a real D1 statement throws, to classify. */
async function failureOf(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error("the statement did not fail");
}

describe("constraint failures are told apart by the constraint that failed", () => {
  it("a taken code is the (tenant, code) key; a taken id is not", async () => {
    const op = await newTenant();
    const existing = await createOperation(op, { code: "TAKEN" });
    const db = primaryDb(env, await shardOf(op.tenantId));
    const [row] = await db.select().from(operations).where(sql`${operations.id} = ${existing.id}`);
    const takenCode = await failureOf(() => db.insert(operations).values({ ...row, id: `${row.id}x` }));
    expect(violatesUnique(takenCode, operations.tenantId, operations.code)).toBe(true);
    expect(violatesUnique(takenCode, operations.id)).toBe(false);
    const takenId = await failureOf(() => db.insert(operations).values({ ...row, code: "OTHER" }));
    expect(violatesUnique(takenId, operations.id)).toBe(true);
    expect(violatesUnique(takenId, operations.tenantId, operations.code)).toBe(false);
    expect(isWriteGuardFailure(takenId)).toBe(false);
  });

  it("reads expression indexes, write guards and other CHECKs", async () => {
    const db = primaryDb(env, "SHARD_1");
    const now = new Date().toISOString();
    const rule = { tenantId: "t-constraints", accountId: "A", supplierId: null, storeId: null, minimum: 1, createdAt: now, updatedAt: now };
    await db.insert(quotaRules).values({ ...rule, id: "qr_a" });
    const sameScope = await failureOf(() => db.insert(quotaRules).values({ ...rule, id: "qr_b" }));
    expect(violatesUniqueIndex(sameScope, "quota_rules_scope")).toBe(true);
    expect(violatesUnique(sameScope, orders.cartId)).toBe(false);

    const guarded = await failureOf(() => runBatch(db, [writeGuard(sql`1 = 0`)]));
    expect(isWriteGuardFailure(guarded)).toBe(true);
    expect(constraintFailure(guarded)?.kind).toBe("check");

    const badRole = await failureOf(() =>
      env.CONTROL.prepare("insert into api_keys (id, tenant_id, role, key_hash, created_at) values ('k', 't', 'ROOT', 'h', 'now')").run(),
    );
    expect(constraintFailure(badRole)?.kind).toBe("check");
    expect(isWriteGuardFailure(badRole)).toBe(false);
    expect(constraintFailure(new Error("network lost"))).toBeNull();
  });
});
