-- Scarce supply shared fairly: a line may have a pool (the units all buyers together may order) and a
-- cap per account (maxPerAccount, overridden per account by operation_account_caps). Orders are checked
-- against what is left in the Operation's serialized step, guarded in SQL in the same batch.
ALTER TABLE operation_lines ADD COLUMN pool_quantity INTEGER;
ALTER TABLE operation_lines ADD COLUMN max_per_account INTEGER;
-- The lines with a pool, for counting the used-up ones.
CREATE INDEX operation_lines_pooled ON operation_lines (operation_id, variant_external_id) WHERE pool_quantity IS NOT NULL;

-- One account's own cap on one line, instead of the line's maxPerAccount (a key account gets 500 where others get 100).
CREATE TABLE operation_account_caps (
  operation_id TEXT NOT NULL,
  variant_external_id TEXT NOT NULL,
  account_id TEXT NOT NULL,
  tenant_id TEXT NOT NULL,
  max_quantity INTEGER NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (operation_id, variant_external_id, account_id)
) WITHOUT ROWID;
CREATE INDEX operation_account_caps_account ON operation_account_caps (operation_id, account_id, variant_external_id);

-- What each account has ordered of each line over its PLACED orders: kept in each order's and
-- cancellation's batch, what its cap is checked against.
CREATE TABLE account_line_totals (
  operation_id TEXT NOT NULL,
  variant_external_id TEXT NOT NULL,
  account_id TEXT NOT NULL,
  tenant_id TEXT NOT NULL,
  ordered_quantity INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (operation_id, variant_external_id, account_id)
) WITHOUT ROWID;

INSERT INTO account_line_totals (operation_id, variant_external_id, account_id, tenant_id, ordered_quantity)
  SELECT ol.operation_id, ol.variant_external_id, o.account_id, o.tenant_id, sum(ol.quantity)
  FROM order_lines ol JOIN orders o ON o.id = ol.order_id
  WHERE o.status = 'PLACED'
  GROUP BY ol.operation_id, ol.variant_external_id, o.account_id;
