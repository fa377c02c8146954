import * as z from "zod";
import { pathId } from "../platform/schema/fields";

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
      .describe("How long the old copy is kept after the switch, for a reverse (default 60)."),
  })
  .meta({ id: "TenantMoveStart", examples: [{ to: "SHARD_2" }] });

export const moveIdParam = z.strictObject({ moveId: pathId("The move's id (mov_…), or `latest`: the tenant's latest move.") });

const moveStatus = z
  .enum(["PREPARING", "COPYING", "CATCHING_UP", "VERIFYING", "SWITCHING", "SWITCHED", "DROPPING", "COMPLETED", "REVERSED", "ABORTING", "ABORTED", "FAILED"])
  .describe("SWITCHED: reversible until `keepSourceUntil`. ABORTED, FAILED: the tenant whole on `from`.");

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
  progress: { rowsEstimated: 1504210, rowsCopied: 1504210, changesApplied: 18412, changesChecked: 18412, rowsVerified: 1503977 },
  catchUp: {
    since: "2026-03-01T08:02:58.120Z",
    elapsedMs: 14210,
    convergeWithinMs: 120000,
    rounds: 2,
    roundsAtMost: 10,
    backlog: { toApply: 0, toCheck: 0 },
    perSecond: { written: 212, applied: 230, checked: 1296 },
  },
  fence: { attempts: 1, longestMs: 214, lastMs: 214 },
  tables: [],
};

export const tenantMoveRepresentation = z
  .object({
    id: z.string(),
    from: z.string(),
    to: z.string(),
    reverseOf: z.string().nullable(),
    status: moveStatus,
    error: z.string().nullable().describe("Why a FAILED move stopped."),
    startedAt: z.string(),
    switchedAt: z.string().nullable(),
    finishedAt: z.string().nullable(),
    keepSourceUntil: z.string().nullable(),
    progress: z.object({
      rowsEstimated: z.number().int(),
      rowsCopied: z.number().int(),
      changesApplied: z.number().int(),
      changesChecked: z.number().int(),
      rowsVerified: z.number().int(),
    }),
    catchUp: z
      .object({
        since: z.string(),
        elapsedMs: z.number().int(),
        convergeWithinMs: z.number().int(),
        rounds: z.number().int(),
        roundsAtMost: z.number().int(),
        backlog: z.object({ toApply: z.number().int(), toCheck: z.number().int() }),
        perSecond: z.object({ written: z.number().int(), applied: z.number().int(), checked: z.number().int() }).nullable(),
      })
      .nullable()
      .describe("The (last) catch-up: log entries waiting and a second; it must fence within `convergeWithinMs`, else FAILED."),
    fence: z
      .object({
        attempts: z.number().int(),
        longestMs: z.number().int().nullable(),
        lastMs: z.number().int().nullable(),
      })
      .describe("Writes refused at the switch (≤ 2 s)."),
    tables: z.array(z.object({ table: z.string(), rows: z.number().int(), sha256: z.string() })).describe("Rows compared on both shards, per table."),
  })
  .meta({ id: "TenantMove", examples: [MOVE_EXAMPLE] });
