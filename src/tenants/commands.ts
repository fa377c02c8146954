import type { Context } from "hono";
import type { AppBindings } from "../platform/http/context";
import { ApiError } from "../platform/core/errors";
import { idPrefixes, isWellFormedId } from "../platform/core/ids";
import type { ShardName } from "../platform/core/shards";
import { LATEST_MOVE, type MoveOutcome, type TenantMove, type TenantMover } from "./mover";

/** The tenant's move object: one per tenant, named by it. */
function moverOf(c: Context<AppBindings>) {
  const namespace = c.env.TENANT_MOVER as unknown as DurableObjectNamespace<TenantMover>;
  return namespace.get(namespace.idFromName(c.var.principal.tenantId));
}

function settled(outcome: MoveOutcome): TenantMove {
  if (!outcome.ok) throw ApiError.from(outcome.problem);
  return outcome.move;
}

/** A move id no move can have is answered here: no object is asked. */
function checkedMoveId(moveId: string): string {
  if (moveId !== LATEST_MOVE && !isWellFormedId(idPrefixes.move, moveId)) throw new ApiError("not_found", `Move ${moveId} not found.`);
  return moveId;
}

/** Starts moving the caller's tenant to `to`: the move runs in the tenant's object, this answers at once. */
export async function startTenantMove(c: Context<AppBindings>, body: { to: string; keepSourceMinutes?: number }): Promise<TenantMove> {
  return settled(await moverOf(c).start({ tenantId: c.var.principal.tenantId, to: body.to as ShardName, keepSourceMinutes: body.keepSourceMinutes }));
}

export async function findTenantMove(c: Context<AppBindings>, moveId: string): Promise<TenantMove> {
  const move = await moverOf(c).get(checkedMoveId(moveId));
  if (!move) throw new ApiError("not_found", `Move ${moveId} not found.`);
  return move;
}

export async function abortTenantMove(c: Context<AppBindings>, moveId: string): Promise<TenantMove> {
  return settled(await moverOf(c).abort(checkedMoveId(moveId)));
}

export async function reverseTenantMove(c: Context<AppBindings>, moveId: string): Promise<TenantMove> {
  return settled(await moverOf(c).reverse(checkedMoveId(moveId)));
}
