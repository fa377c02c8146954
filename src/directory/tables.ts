import { primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/*
 * The tables this resource owns, as the code sees them. The SQL migrations (migrations/) are the one
 * source of truth for the schema; test/architecture/schema.test.ts holds every tables.ts of src/ to
 * them: same tables, same columns, same NOT NULLs.
 */

/* The directory: buyer accounts and their users. */

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
