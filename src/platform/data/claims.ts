import { and, eq, isNull, sql } from "drizzle-orm";
import type { Db } from "./database";
import { idempotencyKeys } from "./tables";

/**
 * Marks the Idempotency-Key claim of a write's request as committed, for a statement of the write's own
 * batch. Writes that record a change set have it marked by a trigger (migration 0023); carts and orders
 * record none, so their batches mark the claim with the cart's or order's id, and an order refused below
 * its minimum with its order.blocked event's. A request cut off after such a batch then answers 409
 * idempotency_answer_lost naming what it created or recorded, never doing it twice.
 */
export function markClaimCommitted(db: Db, tenantId: string, requestId: string, committedId: string) {
  return db
    .update(idempotencyKeys)
    .set({ committedSet: committedId })
    .where(
      and(
        eq(idempotencyKeys.state, "PENDING"),
        eq(idempotencyKeys.requestId, requestId),
        // The unary + keeps the primary key's tenant prefix out of the plan: the claim is found by its request (0024).
        sql`+${idempotencyKeys.tenantId} = ${tenantId}`,
        isNull(idempotencyKeys.committedSet),
      ),
    );
}
