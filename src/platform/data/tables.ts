import { sql } from "drizzle-orm";
import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/*
 * The tables as the code sees them. The SQL migrations (migrations/) are the one source of truth
 * for the schema: they create tables, indexes, CHECKs and generated columns that drizzle-kit cannot
 * express (WITHOUT ROWID tables, expression and partial indexes). This file names their columns for
 * queries and is held to them by test/architecture/schema.test.ts: same tables, same columns, same
 * NOT NULLs. Raw SQL names columns through these objects, never through literals.
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

/** Tables of the control database; every other table is a tenant shard's. */
export const CONTROL_TABLES = [tenantDirectory, apiKeys] as const;

/* A tenant shard (migrations/tenant): every tenant's own data, each row carrying its tenant. */

export const tenants = sqliteTable("tenants", {
  id: text("id").primaryKey(),
  quotaDefaultMinimum: integer("quota_default_minimum").notNull(),
  quotaDefaultEnforcement: text("quota_default_enforcement").$type<QuotaEnforcement>().notNull().default("BLOCK"),
  rulesVersion: integer("rules_version").notNull(),
  createdAt: text("created_at").notNull(),
});

export const operations = sqliteTable("operations", {
  id: text("id").primaryKey(),
  tenantId: text("tenant_id").notNull(),
  code: text("code").notNull(),
  externalId: text("external_id"),
  name: text("name", { mode: "json" }).$type<Record<string, string>>().notNull(),
  description: text("description", { mode: "json" }).$type<Record<string, string>>().notNull(),
  nameSearch: text("name_search").notNull(),
  nameSort: text("name_sort").notNull(),
  /** Locale (lower-cased tag) → lower-cased name: what the locale-narrowed name filter and sort read. */
  nameFolded: text("name_folded", { mode: "json" }).$type<Record<string, string>>().notNull(),
  type: text("type", { enum: ["PUBLIC", "PRIVATE"] }).notNull(),
  status: text("status", { enum: ["DRAFT", "ACTIVE", "INACTIVE"] }).notNull(),
  startDate: text("start_date").notNull(),
  endDate: text("end_date").notNull(),
  /** Scheduled status changes (null: none); a time that has run is cleared. */
  activateAt: text("activate_at"),
  deactivateAt: text("deactivate_at"),
  ownerIds: text("owner_ids", { mode: "json" }).$type<string[]>().notNull(),
  lineCount: integer("line_count").notNull(),
  accountCount: integer("account_count").notNull(),
  cartCount: integer("cart_count").notNull(),
  orderCount: integer("order_count").notNull(),
  version: integer("version").notNull(),
  createdAt: text("created_at").notNull(),
  updatedAt: text("updated_at").notNull(),
});

export const operationOwners = sqliteTable(
  "operation_owners",
  {
    tenantId: text("tenant_id").notNull(),
    userId: text("user_id").notNull(),
    operationId: text("operation_id").notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.userId, t.operationId] })],
);

export const operationLines = sqliteTable(
  "operation_lines",
  {
    operationId: text("operation_id").notNull(),
    variantExternalId: text("variant_external_id").notNull(),
    tenantId: text("tenant_id").notNull(),
    variantId: text("variant_id"),
    variantName: text("variant_name", { mode: "json" }).$type<Record<string, string>>().notNull(),
    variantNameSearch: text("variant_name_search").notNull(),
    variantNameSort: text("variant_name_sort").notNull(),
    minQuantity: integer("min_quantity").notNull(),
    maxQuantity: integer("max_quantity").notNull(),
    recommendedQuantity: integer("recommended_quantity"),
    /** The pack size: every bound and every ordered quantity is a multiple of it (1: sold one by one). */
    quantityIncrement: integer("quantity_increment").notNull().default(1),
    /** coalesce(recommended_quantity, -1): the key its sort, seek and exact filter use (one plain index). */
    recommendedKey: integer("recommended_key").generatedAlwaysAs(sql`coalesce(recommended_quantity, -1)`, { mode: "virtual" }),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.operationId, t.variantExternalId] })],
);

export const accounts = sqliteTable(
  "accounts",
  {
    tenantId: text("tenant_id").notNull(),
    accountId: text("account_id").notNull(),
    name: text("name").notNull(),
    nameSearch: text("name_search").notNull(),
    users: text("users", { mode: "json" }).$type<{ userId: string; email: string }[]>().notNull(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.accountId] })],
);

export const accountUsers = sqliteTable(
  "account_users",
  {
    tenantId: text("tenant_id").notNull(),
    accountId: text("account_id").notNull(),
    userId: text("user_id").notNull(),
    emailLower: text("email_lower").notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.accountId, t.userId] })],
);

export const operationAccounts = sqliteTable(
  "operation_accounts",
  {
    operationId: text("operation_id").notNull(),
    accountId: text("account_id").notNull(),
    tenantId: text("tenant_id").notNull(),
    operationStatus: text("operation_status", { enum: ["NOT_STARTED", "CART_CREATED", "ORDERED"] }).notNull(),
    attachedAt: text("attached_at").notNull(),
    attachedBy: text("attached_by").notNull(),
  },
  (t) => [primaryKey({ columns: [t.operationId, t.accountId] })],
);

export const quotaRules = sqliteTable("quota_rules", {
  id: text("id").primaryKey(),
  tenantId: text("tenant_id").notNull(),
  accountId: text("account_id"),
  supplierId: text("supplier_id"),
  storeId: text("store_id"),
  minimum: integer("minimum").notNull(),
  enforcement: text("enforcement").$type<QuotaEnforcement>().notNull().default("BLOCK"),
  createdAt: text("created_at").notNull(),
  updatedAt: text("updated_at").notNull(),
});

/** What a minimum does to an order below it: refuse it (BLOCK) or place it with a warning (WARN). */
export type QuotaEnforcement = "BLOCK" | "WARN";

export interface StoredOrderLine {
  variantExternalId: string;
  quantity: number;
  unitPrice: number;
  supplierId: string | null;
}

export const carts = sqliteTable("carts", {
  id: text("id").primaryKey(),
  tenantId: text("tenant_id").notNull(),
  operationId: text("operation_id").notNull(),
  accountId: text("account_id").notNull(),
  storeId: text("store_id"),
  lines: text("lines", { mode: "json" }).$type<StoredOrderLine[]>().notNull(),
  createdBy: text("created_by").notNull(),
  createdAt: text("created_at").notNull(),
});

export const orders = sqliteTable("orders", {
  id: text("id").primaryKey(),
  tenantId: text("tenant_id").notNull(),
  operationId: text("operation_id").notNull(),
  accountId: text("account_id").notNull(),
  cartId: text("cart_id"),
  storeId: text("store_id"),
  lines: text("lines", { mode: "json" }).$type<StoredOrderLine[]>().notNull(),
  total: integer("total").notNull(),
  createdBy: text("created_by").notNull(),
  createdAt: text("created_at").notNull(),
  /** The quota evaluation results the order was placed below a WARN minimum with. */
  warnings: text("warnings", { mode: "json" }).$type<Record<string, unknown>[]>().notNull().default([]),
});

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

/**
 * Quota orders as facts (one per supplier of an order placed or refused), for replaying rule changes.
 * The scope keys are never null: '' stands for no supplier or no store (see the migration).
 */
export const quotaOrderFacts = sqliteTable(
  "quota_order_facts",
  {
    tenantId: text("tenant_id").notNull(),
    accountId: text("account_id").notNull(),
    supplierId: text("supplier_id").notNull(),
    storeId: text("store_id").notNull(),
    /** The order it was placed in, or the order.blocked event that refused it. */
    recordId: text("record_id").notNull(),
    at: text("at").notNull(),
    amount: integer("amount").notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.accountId, t.supplierId, t.storeId, t.recordId] })],
);

export const webhooks = sqliteTable("webhooks", {
  id: text("id").primaryKey(),
  tenantId: text("tenant_id").notNull(),
  url: text("url").notNull(),
  eventTypes: text("event_types", { mode: "json" }).$type<string[]>().notNull(),
  description: text("description"),
  secret: text("secret").notNull(),
  createdAt: text("created_at").notNull(),
  updatedAt: text("updated_at").notNull(),
});

export type DeliveryStatus = "pending" | "delivered" | "failed";

export const webhookDeliveries = sqliteTable("webhook_deliveries", {
  id: text("id").primaryKey(),
  tenantId: text("tenant_id").notNull(),
  webhookId: text("webhook_id").notNull(),
  eventId: text("event_id").notNull(),
  eventType: text("event_type").notNull(),
  status: text("status").$type<DeliveryStatus>().notNull(),
  attempts: integer("attempts").notNull(),
  responseStatus: integer("response_status"),
  lastError: text("last_error"),
  lastAttemptAt: text("last_attempt_at"),
  nextAttemptAt: text("next_attempt_at"),
  createdAt: text("created_at").notNull(),
});

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
