import { and, eq, gte, lte, type SQL } from "drizzle-orm";
import type { Principal } from "../platform/core/principal";
import type { Db } from "../platform/data/database";
import { ApiError } from "../platform/core/errors";
import { operations } from "../operations/tables";
import { toIsoSeconds } from "../platform/core/time";
import { visibleTo, type OperationRow } from "../operations/queries";

/** What the front shows: ACTIVE Operations whose dates include now. */
export function openNow(): SQL[] {
  const now = toIsoSeconds(Date.now());
  return [eq(operations.status, "ACTIVE"), lte(operations.startDate, now), gte(operations.endDate, now)];
}

/** The Operation if it is open now and the caller may order from it; 404 otherwise. */
export async function findFrontOperation(db: Db, principal: Principal, operationId: string): Promise<OperationRow> {
  const [row] = await db
    .select()
    .from(operations)
    .where(and(eq(operations.tenantId, principal.tenantId), eq(operations.id, operationId), visibleTo(principal), ...openNow()))
    .limit(1);
  if (!row) throw new ApiError("not_found", `No open Operation ${operationId}.`);
  return row;
}
