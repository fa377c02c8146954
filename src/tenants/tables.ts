import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/*
 * A move's bookkeeping on a shard (migrations/tenant/0019_move_capture.sql): written by triggers on
 * every tenant table and read by the move (move.ts), never by a request.
 */

/** The tenants whose writes this shard records: a move's source, and the new shard of a move whose old copy is kept. */
export const moveCaptures = sqliteTable("move_captures", {
  tenantId: text("tenant_id").primaryKey(),
  since: text("since").notNull(),
});

/** One entry per row written: its table and its primary key (a JSON array), in commit order. */
export const moveChanges = sqliteTable(
  "move_changes",
  {
    seq: integer("seq").primaryKey({ autoIncrement: true }),
    tenantId: text("tenant_id").notNull(),
    tableName: text("table_name").notNull(),
    rowKey: text("row_key").notNull(),
  },
  (t) => [index("move_changes_tenant").on(t.tenantId, t.seq)],
);
