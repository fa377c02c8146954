import { env } from "cloudflare:test";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { openDb, type Db } from "../../src/platform/data/database";
import { appendEvent } from "../../src/platform/data/events";
import { runBatch } from "../../src/platform/data/sql";
import { events } from "../../src/platform/data/tables";
import { operations } from "../../src/operations/tables";
import { newTrace } from "../../src/platform/data/trace";
import { newTenant } from "../helpers/client";
import { shardOf } from "../helpers/shards";

/*
 * Appending an event says so itself: the insert appendEvent builds announces "events", and the batch
 * that commits it (runBatch) notes that on its handle's trace, whatever else the batch holds. Reads,
 * other writes and a failed batch leave the trace unmarked (what the webhook hand-on after the answer
 * relies on); no SQL text is inspected.
 */
describe("a trace's eventsAppended", () => {
  const event = (tenantId: string) => ({ tenantId, type: "quota_default.updated" as const, actor: "test", data: { minimum: 1 } });

  it.each([
    ["a batch of one event", (db: Db, tenantId: string) => [appendEvent(db, event(tenantId))]],
    [
      "a batch holding an event among other writes",
      (db: Db, tenantId: string) => [
        db.update(operations).set({ updatedAt: "2026-01-01T00:00:00Z" }).where(eq(operations.tenantId, tenantId)),
        appendEvent(db, event(tenantId)),
      ],
    ],
  ])("is set by %s once it commits", async (_name, statements) => {
    const { tenantId } = await newTenant();
    const trace = newTrace();
    const db = openDb(env, await shardOf(tenantId), "first-primary", trace);
    await runBatch(db, statements(db, tenantId));
    expect(trace.eventsAppended).toBe(true);
  });

  it("stays unset for reads, writes to other tables and a batch that failed", async () => {
    const { tenantId } = await newTenant();
    const trace = newTrace();
    const db = openDb(env, await shardOf(tenantId), "first-primary", trace);
    await db.select().from(events).where(eq(events.tenantId, tenantId));
    await db.update(operations).set({ updatedAt: "2026-01-01T00:00:00Z" }).where(eq(operations.tenantId, tenantId));
    // The second statement breaks the batch (no such table): the event before it is rolled back.
    await expect(runBatch(db, [appendEvent(db, event(tenantId)), sql`insert into no_such_table values (1)`])).rejects.toThrow();
    expect(trace.eventsAppended).toBe(false);
    expect(await db.select().from(events).where(eq(events.tenantId, tenantId))).toEqual([]);
  });
});
