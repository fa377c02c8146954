/*
 * The triggers every tenant table carries, generated from the move's table registry (MOVE_PLANS):
 *   a fence (BEFORE insert, update, delete): while a tenant moves, no write to its rows commits here
 *     (migrations/tenant/0010_shards.sql), and LEFT still refuses writes but lets the move delete;
 *   a capture (AFTER insert, update, delete): while a tenant is captured, each written row's key goes
 *     to the change log the move catches up from (0019_move_capture.sql).
 * A table added to MOVED_TABLES gets both from `npm run migrations:triggers`, which writes the next
 * migration; test/tenants/triggers.test.ts holds every shard to exactly these.
 */
import { MOVE_PLANS, type TablePlan } from "./move";

export interface GeneratedTrigger {
  name: string;
  table: string;
  sql: string;
}

type RowName = "NEW" | "OLD";

/** How a trigger finds the row's tenant: its tenant column, its own id (tenants), or its change set's (change_records). */
function tenantOf(plan: TablePlan, row: RowName): string {
  if (plan.name === "tenants") return `${row}.id`;
  if (plan.scope === "change-set") return `(SELECT tenant_id FROM change_sets WHERE id = ${row}.set_id)`;
  return `${row}.tenant_id`;
}

/**
 * The trigger's WHEN: the row's tenant is in `table` (tenant_fences, move_captures). A tenant found
 * through a subquery (change_records: thousands of rows a batch) is looked up only when the table holds
 * anyone at all, which it almost never does: other writes pay one probe of an empty table per row.
 */
function whenListed(plan: TablePlan, table: string, row: RowName, extra = ""): string {
  const listed = `EXISTS (SELECT 1 FROM ${table} WHERE tenant_id = ${tenantOf(plan, row)}${extra})`;
  return plan.scope === "change-set" ? `EXISTS (SELECT 1 FROM ${table}) AND ${listed}` : listed;
}

const keyOf = (plan: TablePlan, row: RowName) => `json_array(${plan.key.map((column) => `${row}.${column}`).join(", ")})`;

function fenceTriggers(plan: TablePlan): GeneratedTrigger[] {
  const fence = (event: "INSERT" | "UPDATE" | "DELETE", row: RowName, moving: string) => ({
    name: `${plan.name}_fence_${event.toLowerCase()}`,
    table: plan.name,
    sql: `CREATE TRIGGER ${plan.name}_fence_${event.toLowerCase()} BEFORE ${event} ON ${plan.name}
  WHEN ${whenListed(plan, "tenant_fences", row, moving)}
  BEGIN SELECT RAISE(ABORT, 'tenant_moving'); END`,
  });
  // A LEFT tenant's rows may still be deleted (by the move that left them): only MOVING fences deletes.
  return [fence("INSERT", "NEW", ""), fence("UPDATE", "OLD", ""), fence("DELETE", "OLD", " AND state = 'MOVING'")];
}

function captureTriggers(plan: TablePlan): GeneratedTrigger[] {
  const record = (row: RowName) =>
    `INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES (${tenantOf(plan, row)}, '${plan.name}', ${keyOf(plan, row)});`;
  const capture = (event: "INSERT" | "UPDATE" | "DELETE", row: RowName, body: string) => ({
    name: `${plan.name}_capture_${event.toLowerCase()}`,
    table: plan.name,
    sql: `CREATE TRIGGER ${plan.name}_capture_${event.toLowerCase()} AFTER ${event} ON ${plan.name}
  WHEN ${whenListed(plan, "move_captures", row)}
  BEGIN ${body} END`,
  });
  // An update that changes the key records the old key too: the row left it.
  const movedKey = `INSERT INTO move_changes (tenant_id, table_name, row_key) SELECT ${tenantOf(plan, "NEW")}, '${plan.name}', ${keyOf(plan, "OLD")} WHERE ${keyOf(plan, "OLD")} <> ${keyOf(plan, "NEW")};`;
  return [capture("INSERT", "NEW", record("NEW")), capture("UPDATE", "NEW", `${record("NEW")}\n    ${movedKey}`), capture("DELETE", "OLD", record("OLD"))];
}

/** Every fence and capture trigger of the tenant tables, in MOVED_TABLES order. */
export function generatedTriggers(plans: readonly TablePlan[] = MOVE_PLANS): GeneratedTrigger[] {
  return plans.flatMap((plan) => [...fenceTriggers(plan), ...captureTriggers(plan)]);
}

/** A trigger's SQL with its white space made one space: how a stored trigger is compared with its generated one. */
export const normalizedTriggerSql = (sql: string) => sql.replace(/\s+/g, " ").trim();
