-- The campaign while it runs: orders can be cancelled, and an Operation's totals are kept as orders are
-- placed, cancelled and refused, in the same batch (never counted from the orders when read).

-- An order is PLACED until cancelled; a cancelled order stays linked to its Operation.
ALTER TABLE orders ADD COLUMN status TEXT NOT NULL DEFAULT 'PLACED' CHECK (status IN ('PLACED', 'CANCELLED'));
ALTER TABLE orders ADD COLUMN cancelled_at TEXT;
ALTER TABLE orders ADD COLUMN cancel_reason TEXT;
ALTER TABLE orders ADD COLUMN cancelled_by TEXT;
-- GET …/orders?sort=amount, and ?status= newest first.
CREATE INDEX orders_amount ON orders (operation_id, total, id);
CREATE INDEX orders_status ON orders (operation_id, status, created_at, id);

-- Each line an order carries, keyed for "the orders carrying this variant" (GET …/orders?variantExternalId=).
CREATE TABLE order_lines (
  operation_id TEXT NOT NULL,
  variant_external_id TEXT NOT NULL,
  order_id TEXT NOT NULL,
  tenant_id TEXT NOT NULL,
  quantity INTEGER NOT NULL,
  PRIMARY KEY (operation_id, variant_external_id, order_id)
) WITHOUT ROWID;

-- What each line has sold: the sum of its quantity over PLACED orders, and how many PLACED orders carry it.
ALTER TABLE operation_lines ADD COLUMN ordered_quantity INTEGER NOT NULL DEFAULT 0;
ALTER TABLE operation_lines ADD COLUMN order_count INTEGER NOT NULL DEFAULT 0;
CREATE INDEX operation_lines_ordered ON operation_lines (operation_id, ordered_quantity, variant_external_id);
CREATE INDEX operation_lines_order_count ON operation_lines (operation_id, order_count, variant_external_id);

-- One row per Operation with an order or a refusal: PLACED orders and their amount, cancellations,
-- refused placements by reason.
CREATE TABLE operation_totals (
  operation_id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL,
  orders INTEGER NOT NULL DEFAULT 0,
  amount INTEGER NOT NULL DEFAULT 0,
  cancelled INTEGER NOT NULL DEFAULT 0,
  quota_refusals INTEGER NOT NULL DEFAULT 0,
  allocation_refusals INTEGER NOT NULL DEFAULT 0,
  updated_at TEXT NOT NULL
);

-- The same per account: every account that ordered or was refused, and every attached account (its
-- row made when attached), so "who has not ordered yet" is one range of this table.
CREATE TABLE operation_account_totals (
  operation_id TEXT NOT NULL,
  account_id TEXT NOT NULL,
  tenant_id TEXT NOT NULL,
  orders INTEGER NOT NULL DEFAULT 0,
  amount INTEGER NOT NULL DEFAULT 0,
  cancelled INTEGER NOT NULL DEFAULT 0,
  quota_refusals INTEGER NOT NULL DEFAULT 0,
  allocation_refusals INTEGER NOT NULL DEFAULT 0,
  last_order_at TEXT,
  PRIMARY KEY (operation_id, account_id)
) WITHOUT ROWID;
CREATE INDEX operation_account_totals_orders ON operation_account_totals (operation_id, orders, account_id);
CREATE INDEX operation_account_totals_amount ON operation_account_totals (operation_id, amount, account_id);

-- The same per UTC day: orders placed that day (cancelled since or not), cancellations made that day, refusals.
CREATE TABLE operation_daily_totals (
  operation_id TEXT NOT NULL,
  day TEXT NOT NULL,
  tenant_id TEXT NOT NULL,
  orders INTEGER NOT NULL DEFAULT 0,
  amount INTEGER NOT NULL DEFAULT 0,
  cancellations INTEGER NOT NULL DEFAULT 0,
  cancelled_amount INTEGER NOT NULL DEFAULT 0,
  quota_refusals INTEGER NOT NULL DEFAULT 0,
  allocation_refusals INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (operation_id, day)
) WITHOUT ROWID;

-- What the orders and refusals placed before this migration add up to.
-- Orders written before carried a variant on several lines at times: one row per variant, summed.
-- Lines or events that are not JSON (no code writes them) are left out rather than failing the migration.
INSERT INTO order_lines (operation_id, variant_external_id, order_id, tenant_id, quantity)
  SELECT o.operation_id, l.value ->> 'variantExternalId', o.id, o.tenant_id, sum(l.value ->> 'quantity')
  FROM orders o, json_each(CASE WHEN json_valid(o.lines) THEN o.lines ELSE '[]' END) l
  WHERE l.value ->> 'variantExternalId' IS NOT NULL
  GROUP BY o.id, l.value ->> 'variantExternalId';
UPDATE operation_lines SET
  ordered_quantity = (SELECT coalesce(sum(quantity), 0) FROM order_lines ol WHERE ol.operation_id = operation_lines.operation_id AND ol.variant_external_id = operation_lines.variant_external_id),
  order_count = (SELECT count(*) FROM order_lines ol WHERE ol.operation_id = operation_lines.operation_id AND ol.variant_external_id = operation_lines.variant_external_id)
  WHERE operation_id IN (SELECT operation_id FROM order_lines);
INSERT INTO operation_totals (operation_id, tenant_id, orders, amount, updated_at)
  SELECT operation_id, tenant_id, count(*), sum(total), max(created_at) FROM orders GROUP BY operation_id;
INSERT INTO operation_account_totals (operation_id, account_id, tenant_id, orders, amount, last_order_at)
  SELECT operation_id, account_id, tenant_id, count(*), sum(total), max(created_at) FROM orders GROUP BY operation_id, account_id;
INSERT INTO operation_account_totals (operation_id, account_id, tenant_id)
  SELECT operation_id, account_id, tenant_id FROM operation_accounts WHERE true
  ON CONFLICT (operation_id, account_id) DO NOTHING;
INSERT INTO operation_daily_totals (operation_id, day, tenant_id, orders, amount)
  SELECT operation_id, substr(created_at, 1, 10), tenant_id, count(*), sum(total) FROM orders GROUP BY operation_id, substr(created_at, 1, 10);
INSERT INTO operation_totals (operation_id, tenant_id, quota_refusals, updated_at)
  SELECT e.operation_id, e.tenant_id, count(*), max(e.at) FROM events e JOIN operations o ON o.id = e.operation_id
  WHERE e.type = 'order.blocked' AND json_valid(e.data) GROUP BY e.operation_id
  ON CONFLICT (operation_id) DO UPDATE SET quota_refusals = excluded.quota_refusals;
INSERT INTO operation_account_totals (operation_id, account_id, tenant_id, quota_refusals)
  SELECT e.operation_id, e.data ->> 'accountId', e.tenant_id, count(*) FROM events e JOIN operations o ON o.id = e.operation_id
  WHERE e.type = 'order.blocked' AND json_valid(e.data) GROUP BY e.operation_id, e.data ->> 'accountId'
  ON CONFLICT (operation_id, account_id) DO UPDATE SET quota_refusals = excluded.quota_refusals;
INSERT INTO operation_daily_totals (operation_id, day, tenant_id, quota_refusals)
  SELECT e.operation_id, substr(e.at, 1, 10), e.tenant_id, count(*) FROM events e JOIN operations o ON o.id = e.operation_id
  WHERE e.type = 'order.blocked' AND json_valid(e.data) GROUP BY e.operation_id, substr(e.at, 1, 10)
  ON CONFLICT (operation_id, day) DO UPDATE SET quota_refusals = excluded.quota_refusals;
