import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import type { QuotaEnforcement } from "../../common/rule-index";

/*
 * The tables as the code sees them. The SQL migrations (migrations/) are the one source of truth
 * for the schema: they create tables, indexes, CHECKs and generated columns that drizzle-kit cannot
 * express (WITHOUT ROWID tables, expression and partial indexes). The tables.ts files name their
 * columns for queries and are held to them by test/architecture/schema.test.ts: same tables, same
 * columns, same NOT NULLs. Raw SQL names columns through these objects, never through literals.
 * This one holds the tables the platform itself reads (the control database, the tenant row, events,
 * idempotency, write guards, fences); each resource keeps its own beside it (operations/tables.ts…).
 */

/* The control database (migrations/control): the tenant directory and API keys. */

export const tenantDirectory = sqliteTable("tenant_directory", {
  tenantId: text("tenant_id").primaryKey(),
  /** The binding name of the shard holding the tenant's rows. */
  shard: text("shard").notNull(),
  defaultLocale: text("default_locale").notNull(),
  state: text("state", { enum: ["ACTIVE", "MOVING"] }).notNull(),
  movingTo: text("moving_to"),
  createdAt: text("created_at").notNull(),
  movedAt: text("moved_at"),
});

export const apiKeys = sqliteTable("api_keys", {
  id: text("id").primaryKey(),
  tenantId: text("tenant_id").notNull(),
  role: text("role", { enum: ["OPERATOR", "ACCOUNT"] }).notNull(),
  userId: text("user_id"),
  keyHash: text("key_hash").notNull(),
  name: text("name"),
  /**
   * The key's first characters, as many as tell it apart from the tenant's other keys (unique in the
   * tenant); null until a key issued before prefixes were distinct is next used.
   */
  prefix: text("prefix"),
  expiresAt: text("expires_at"),
  revokedAt: text("revoked_at"),
  createdAt: text("created_at").notNull(),
});

/** Which keys were given live connections to which Operations: a revoked key's are closed there (src/live/). */
export const liveKeys = sqliteTable(
  "live_keys",
  {
    keyId: text("key_id").notNull(),
    operationId: text("operation_id").notNull(),
    tenantId: text("tenant_id").notNull(),
    issuedAt: text("issued_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.keyId, t.operationId] })],
);

/** Tables of the control database; every other table is a tenant shard's. */
export const CONTROL_TABLES = [tenantDirectory, apiKeys, liveKeys] as const;

/* A tenant shard (migrations/tenant): every tenant's own data, each row carrying its tenant. */

export const tenants = sqliteTable("tenants", {
  id: text("id").primaryKey(),
  quotaDefaultMinimum: integer("quota_default_minimum").notNull(),
  quotaDefaultEnforcement: text("quota_default_enforcement").$type<QuotaEnforcement>().notNull().default("BLOCK"),
  rulesVersion: integer("rules_version").notNull(),
  createdAt: text("created_at").notNull(),
  /** How long change records are kept, in years (at least 3); null: until the tenant is deleted. */
  historyRetentionYears: integer("history_retention_years"),
  /** Valid approvals a change into ACTIVE needs (0: approvals are off), and whether the version's author may be one. */
  approvalsRequired: integer("approvals_required").notNull().default(0),
  approvalsAllowSelf: integer("approvals_allow_self", { mode: "boolean" }).notNull().default(false),
  /** The ISO 4217 currency the tenant's amounts are minor units of (null: not said). */
  displayCurrency: text("display_currency"),
});

export type { QuotaEnforcement };

export const events = sqliteTable("events", {
  id: text("id").primaryKey(),
  tenantId: text("tenant_id").notNull(),
  type: text("type").notNull(),
  operationId: text("operation_id"),
  ruleId: text("rule_id"),
  actor: text("actor").notNull(),
  at: text("at").notNull(),
  data: text("data", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
  /** When the event's webhook deliveries were created (null: not yet; the outbox sweep looks for those). */
  handedOnAt: text("handed_on_at"),
});

/** One per committed write that changed something: who, when, why, and for an Operation the version it made (platform/data/changes.ts). */
export const changeSets = sqliteTable("change_sets", {
  id: text("id").primaryKey(),
  tenantId: text("tenant_id").notNull(),
  operationId: text("operation_id"),
  version: integer("version"),
  actor: text("actor").notNull(),
  /** The key the change was made with (null: the schedule, the command line, or recorded before keys were kept). */
  keyId: text("key_id"),
  requestId: text("request_id"),
  reason: text("reason"),
  at: text("at").notNull(),
});

/** What a change set says of its write (all but its id and tenant), as reads and the archive select it. */
export const changeSetFields = {
  operationId: changeSets.operationId,
  version: changeSets.version,
  actor: changeSets.actor,
  keyId: changeSets.keyId,
  requestId: changeSets.requestId,
  reason: changeSets.reason,
  at: changeSets.at,
};

/** One per resource a change set changed: its type and action as one letter each, and only the fields that changed. */
export const changeRecords = sqliteTable(
  "change_records",
  {
    setId: text("set_id").notNull(),
    resourceType: text("resource_type").notNull(),
    action: text("action").notNull(),
    resourceId: text("resource_id").notNull(),
    ordinal: integer("ordinal").notNull(),
    changes: text("changes").notNull(),
  },
  (t) => [primaryKey({ columns: [t.setId, t.resourceType, t.action, t.resourceId] })],
);

export const idempotencyKeys = sqliteTable(
  "idempotency_keys",
  {
    tenantId: text("tenant_id").notNull(),
    /** "ROLE:userId": a key is the caller's own (userId empty for OPERATOR keys). */
    caller: text("caller").notNull(),
    idempotencyKey: text("idempotency_key").notNull(),
    fingerprint: text("fingerprint").notNull(),
    state: text("state", { enum: ["PENDING", "DONE"] }).notNull(),
    responseStatus: integer("response_status"),
    responseHeaders: text("response_headers", { mode: "json" }).$type<Record<string, string>>(),
    responseBody: text("response_body"),
    createdAt: text("created_at").notNull(),
    /** The request that holds the claim (its x-request-id). */
    requestId: text("request_id"),
    /**
     * What the claim's write committed, set in the write's own batch: its change set (by a trigger, 0023),
     * or the cart or order it created (which record no change set). The request is never run again.
     */
    committedSet: text("committed_set"),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.caller, t.idempotencyKey] })],
);

/**
 * A batch that must apply only while some state still holds inserts a 0 here when it does not;
 * the CHECK (ok = 1) then aborts the whole batch (a D1 batch is one transaction). Never holds a row.
 */
export const writeGuards = sqliteTable("write_guard", {
  ok: integer("ok").notNull(),
});

/** A tenant being moved away from this shard: its rows refuse writes (MOVING refuses deletes too). */
export const tenantFences = sqliteTable("tenant_fences", {
  tenantId: text("tenant_id").primaryKey(),
  state: text("state", { enum: ["MOVING", "LEFT"] }).notNull(),
  since: text("since").notNull(),
});
