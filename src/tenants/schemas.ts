import * as z from "zod";
import { listEnvelope, pathId } from "../platform/schema/fields";

/** A shard as wrangler.toml binds it: which ones exist is the deployment's, checked when a move starts. */
const shardName = z
  .string()
  .regex(/^SHARD_[A-Z0-9_]{1,40}$/, "must be a shard binding name (SHARD_…)")
  .describe("A tenant shard of this deployment, by its binding name (`SHARD_1`, `SHARD_2`…).");

/** A week: the longest an old copy is kept (every write meanwhile is logged twice, for the way back). */
export const MAX_KEEP_SOURCE_MINUTES = 7 * 24 * 60;

export const startTenantMoveBody = z
  .strictObject({
    to: shardName,
    keepSourceMinutes: z
      .number()
      .int()
      .min(0)
      .max(MAX_KEEP_SOURCE_MINUTES)
      .optional()
      .describe(
        "How long the old copy is kept after the switch, so that the move can be reversed by catching up on the writes made since (60 by default; 0: dropped as soon as every instance routes to the new shard, about 11 s).",
      ),
  })
  .meta({ id: "TenantMoveStart", examples: [{ to: "SHARD_2" }] });

export const moveIdParam = z.strictObject({ moveId: pathId("The move's id (mov_…).") });

const moveStatus = z
  .enum(["PREPARING", "COPYING", "CATCHING_UP", "VERIFYING", "SWITCHING", "SWITCHED", "DROPPING", "COMPLETED", "REVERSED", "ABORTING", "ABORTED", "FAILED"])
  .describe(
    "PREPARING → COPYING (while serving) → CATCHING_UP ⇄ VERIFYING (every row compared on both shards) → SWITCHING (writes fenced ≤ 2 s) → SWITCHED (the tenant is served from `to`; the old copy is kept until `keepSourceUntil` and the move can be reversed) → DROPPING → COMPLETED. REVERSED: a move back started from it. Before SWITCHED an abort, or a failure, goes ABORTING → ABORTED or FAILED (`error` says why), with the tenant whole on `from`.",
  );

const MOVE_EXAMPLE = {
  id: "mov_01JQ3V9A4C6E8G0J2K4N6Q8S0T",
  from: "SHARD_1",
  to: "SHARD_2",
  reverseOf: null,
  status: "SWITCHED",
  error: null,
  startedAt: "2026-03-01T08:00:00.000Z",
  switchedAt: "2026-03-01T08:03:12.412Z",
  finishedAt: null,
  keepSourceUntil: "2026-03-01T09:03:12.412Z",
  progress: { rowsEstimated: 1504210, rowsCopied: 1504210, changesApplied: 18412, rowsVerified: 1503977 },
  fence: { attempts: 1, longestMs: 214, lastMs: 214 },
  tables: [{ table: "operation_lines", rows: 1500000, sha256: "9f2c4e1b7a5d3c0e8b6a4f2d1c9e7b5a3f1d0c8e6b4a2f0d9c7e5b3a1f0e8d6c" }],
};

export const tenantMoveRepresentation = z
  .object({
    id: z.string(),
    from: z.string().describe("The shard the tenant was on when the move started."),
    to: z.string(),
    reverseOf: z.string().nullable().describe("The move this one takes back (a reverse): only the writes made since its switch are copied."),
    status: moveStatus,
    error: z.string().nullable().describe("Why a FAILED move stopped (the tenant stayed whole on `from`)."),
    startedAt: z.string(),
    switchedAt: z.string().nullable().describe("When the directory switched to `to`."),
    finishedAt: z.string().nullable(),
    keepSourceUntil: z.string().nullable().describe("While SWITCHED: until when the old copy is kept, and the move can be reversed."),
    progress: z.object({
      rowsEstimated: z.number().int().describe("The tenant's rows when the move started."),
      rowsCopied: z.number().int(),
      changesApplied: z.number().int().describe("Writes made during the move, caught up on the copy."),
      rowsVerified: z.number().int().describe("Rows compared on both shards, value for value."),
    }),
    fence: z
      .object({
        attempts: z.number().int().describe("Cutovers tried: one that would hold writes longer than the fence allows is lifted and tried again."),
        longestMs: z.number().int().nullable().describe("How long writes were refused (503 tenant_moving) at the switch."),
        lastMs: z.number().int().nullable(),
      })
      .describe("The write fence: writes are refused only for the final catch-up and the switch, at most 2 s."),
    tables: z
      .array(z.object({ table: z.string(), rows: z.number().int(), sha256: z.string() }))
      .describe(
        "Per table, the rows compared on both shards and a SHA-256 over them in order (rows written during the check are compared inside the fence instead).",
      ),
  })
  .meta({ id: "TenantMove", examples: [MOVE_EXAMPLE] });

export const tenantMovePage = listEnvelope(tenantMoveRepresentation).meta({ id: "TenantMovePage" });
