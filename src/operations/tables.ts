import { sql } from "drizzle-orm";
import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/*
 * The tables this resource owns, as the code sees them. The SQL migrations (migrations/) are the one
 * source of truth for the schema; test/architecture/schema.test.ts holds every tables.ts of src/ to
 * them: same tables, same columns, same NOT NULLs.
 */

/* The Operation aggregate's rows: the Operation, its owners, lines and attached accounts, and the carts and orders linked to it. */

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
    /** The sum of its quantity over the Operation's PLACED orders, kept in each order's and cancellation's batch. */
    orderedQuantity: integer("ordered_quantity").notNull().default(0),
    /** How many PLACED orders carry it, kept alike. */
    orderCount: integer("order_count").notNull().default(0),
    /** The units all buyers together may order in the Operation (null: unlimited). */
    poolQuantity: integer("pool_quantity"),
    /** What one account may order in all (null: no cap), unless operation_account_caps says otherwise for it. */
    maxPerAccount: integer("max_per_account"),
    /** coalesce(recommended_quantity, -1): the key its sort, seek and exact filter use (one plain index). */
    recommendedKey: integer("recommended_key").generatedAlwaysAs(sql`coalesce(recommended_quantity, -1)`, { mode: "virtual" }),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.operationId, t.variantExternalId] })],
);

/** A line's own fields as a PUT writes them and history records them (no derived column, no updatedAt). */
export const storedLineColumns = {
  variantExternalId: operationLines.variantExternalId,
  variantId: operationLines.variantId,
  variantName: operationLines.variantName,
  minQuantity: operationLines.minQuantity,
  maxQuantity: operationLines.maxQuantity,
  recommendedQuantity: operationLines.recommendedQuantity,
  quantityIncrement: operationLines.quantityIncrement,
};

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

/**
 * Decisions on the Operation before it goes ACTIVE, each bound to the version it was made on: one per
 * approver and version (deciding again replaces the decision, under its id). A decision counts only
 * while its version is the Operation's (operations/approval-gate.ts).
 */
export const operationApprovals = sqliteTable(
  "operation_approvals",
  {
    operationId: text("operation_id").notNull(),
    version: integer("version").notNull(),
    /** As actors are named: user:<userId> (the key's user) or key:<keyId>. */
    approver: text("approver").notNull(),
    tenantId: text("tenant_id").notNull(),
    id: text("id").notNull(),
    decision: text("decision", { enum: ["APPROVE", "REJECT"] }).notNull(),
    comment: text("comment"),
    decidedAt: text("decided_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.operationId, t.version, t.approver] })],
);

export const ORDER_STATUSES = ["PLACED", "CANCELLED"] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

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
  status: text("status", { enum: ORDER_STATUSES }).notNull().default("PLACED"),
  cancelledAt: text("cancelled_at"),
  cancelReason: text("cancel_reason"),
  /** Who cancelled it, as actors are named. */
  cancelledBy: text("cancelled_by"),
});

/** Each line an order carries, by variant: the orders carrying one variant are one range. */
export const orderLines = sqliteTable(
  "order_lines",
  {
    operationId: text("operation_id").notNull(),
    variantExternalId: text("variant_external_id").notNull(),
    orderId: text("order_id").notNull(),
    tenantId: text("tenant_id").notNull(),
    quantity: integer("quantity").notNull(),
  },
  (t) => [primaryKey({ columns: [t.operationId, t.variantExternalId, t.orderId] })],
);

/*
 * The Operation's totals, kept in the batch of every order, cancellation and refused placement
 * (src/totals/commands.ts): read as they are, never counted from the orders.
 */

/** The Operation's PLACED orders and their amount, its cancellations, its refusals by reason. */
export const operationTotals = sqliteTable("operation_totals", {
  operationId: text("operation_id").primaryKey(),
  tenantId: text("tenant_id").notNull(),
  orders: integer("orders").notNull().default(0),
  amount: integer("amount").notNull().default(0),
  cancelled: integer("cancelled").notNull().default(0),
  quotaRefusals: integer("quota_refusals").notNull().default(0),
  allocationRefusals: integer("allocation_refusals").notNull().default(0),
  updatedAt: text("updated_at").notNull(),
});

/** The same per account: those that ordered or were refused, and every attached account (a row from its attachment on). */
export const operationAccountTotals = sqliteTable(
  "operation_account_totals",
  {
    operationId: text("operation_id").notNull(),
    accountId: text("account_id").notNull(),
    tenantId: text("tenant_id").notNull(),
    orders: integer("orders").notNull().default(0),
    amount: integer("amount").notNull().default(0),
    cancelled: integer("cancelled").notNull().default(0),
    quotaRefusals: integer("quota_refusals").notNull().default(0),
    allocationRefusals: integer("allocation_refusals").notNull().default(0),
    lastOrderAt: text("last_order_at"),
  },
  (t) => [primaryKey({ columns: [t.operationId, t.accountId] })],
);

/** The same per UTC day: orders placed that day, cancellations made that day, refusals. */
export const operationDailyTotals = sqliteTable(
  "operation_daily_totals",
  {
    operationId: text("operation_id").notNull(),
    day: text("day").notNull(),
    tenantId: text("tenant_id").notNull(),
    orders: integer("orders").notNull().default(0),
    amount: integer("amount").notNull().default(0),
    cancellations: integer("cancellations").notNull().default(0),
    cancelledAmount: integer("cancelled_amount").notNull().default(0),
    quotaRefusals: integer("quota_refusals").notNull().default(0),
    allocationRefusals: integer("allocation_refusals").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.operationId, t.day] })],
);

/** One account's own cap on one line, instead of the line's maxPerAccount. */
export const operationAccountCaps = sqliteTable(
  "operation_account_caps",
  {
    operationId: text("operation_id").notNull(),
    variantExternalId: text("variant_external_id").notNull(),
    accountId: text("account_id").notNull(),
    tenantId: text("tenant_id").notNull(),
    maxQuantity: integer("max_quantity").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.operationId, t.variantExternalId, t.accountId] })],
);

/** What each account has ordered of each line over its PLACED orders, kept like the lines' totals. */
export const accountLineTotals = sqliteTable(
  "account_line_totals",
  {
    operationId: text("operation_id").notNull(),
    variantExternalId: text("variant_external_id").notNull(),
    accountId: text("account_id").notNull(),
    tenantId: text("tenant_id").notNull(),
    orderedQuantity: integer("ordered_quantity").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.operationId, t.variantExternalId, t.accountId] })],
);
