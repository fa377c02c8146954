import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import type { QuotaEnforcement } from "../platform/data/tables";

/*
 * The tables this resource owns, as the code sees them. The SQL migrations (migrations/) are the one
 * source of truth for the schema; test/architecture/schema.test.ts holds every tables.ts of src/ to
 * them: same tables, same columns, same NOT NULLs.
 */

/* Quotas Rules, and the quota orders kept as facts for impact replays. */

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
