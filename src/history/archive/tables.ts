import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** Which R2 object holds which archived change sets of a tenant (migrations/tenant/0021_history_archive.sql). */
export const historyArchive = sqliteTable(
  "history_archive",
  {
    tenantId: text("tenant_id").notNull(),
    /** The Operation the sets belong to, or "" for the tenant's other records. */
    scope: text("scope").notNull(),
    firstSet: text("first_set").notNull(),
    lastSet: text("last_set").notNull(),
    firstVersion: integer("first_version"),
    lastVersion: integer("last_version"),
    firstAt: text("first_at").notNull(),
    lastAt: text("last_at").notNull(),
    /** It holds the Operation's creation record (its history starts at version 1). */
    created: integer("created", { mode: "boolean" }).notNull(),
    sets: integer("sets").notNull(),
    records: integer("records").notNull(),
    bytes: integer("bytes").notNull(),
    sha256: text("sha256").notNull(),
    objectKey: text("object_key").notNull(),
    archivedAt: text("archived_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.scope, t.firstSet] })],
);

export type ArchivedObject = typeof historyArchive.$inferSelect;
