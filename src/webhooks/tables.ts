import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/*
 * The tables this resource owns, as the code sees them. The SQL migrations (migrations/) are the one
 * source of truth for the schema; test/architecture/schema.test.ts holds every tables.ts of src/ to
 * them: same tables, same columns, same NOT NULLs.
 */

/* Webhook subscriptions and their deliveries. */

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
