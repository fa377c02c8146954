-- Quota orders kept as facts, so a proposed rule change can be replayed against real history
-- (POST /v1/buying-policies/quotas/impact). One row per quota order: the lines of one supplier of an
-- order (or its lines without a supplier), as quota evaluation saw them. A placed order's rows are
-- written in its own batch, a refused order's in the batch of its order.blocked event.
--
-- The table is clustered in the order the replay reads it, (account, supplier, store) within the
-- tenant: the replay folds each key's orders together, a page at a time, and the key decides the
-- minimum. Scope keys are never NULL, so row values compare in keyset pages: '' stands for "none" (an
-- order without a supplier or a store), which no id can be (ids are 1–128 characters, trimmed).
CREATE TABLE quota_order_facts (
  tenant_id TEXT NOT NULL,
  account_id TEXT NOT NULL,
  supplier_id TEXT NOT NULL,
  store_id TEXT NOT NULL,
  -- The order (ord_…) the quota order was placed in, or the order.blocked event (evt_…) that refused it.
  record_id TEXT NOT NULL,
  -- When it was placed or refused (ISO-8601 UTC with milliseconds, as orders.created_at and events.at).
  at TEXT NOT NULL,
  amount INTEGER NOT NULL,
  PRIMARY KEY (tenant_id, account_id, supplier_id, store_id, record_id)
) WITHOUT ROWID;

-- The orders placed before this migration: their lines, summed per supplier as placing them did.
-- Rows whose lines are not JSON (none are written so) are left out rather than failing the migration.
INSERT OR IGNORE INTO quota_order_facts (tenant_id, account_id, supplier_id, store_id, record_id, at, amount)
SELECT o.tenant_id, o.account_id, coalesce(line.value ->> '$.supplierId', ''), coalesce(o.store_id, ''), o.id, o.created_at,
  total((line.value ->> '$.quantity') * (line.value ->> '$.unitPrice'))
FROM orders AS o, json_each(CASE WHEN json_valid(o.lines) THEN o.lines ELSE '[]' END) AS line
GROUP BY o.id, coalesce(line.value ->> '$.supplierId', '');

-- The orders refused before it: every order.blocked event lists its quota orders with their amounts.
INSERT OR IGNORE INTO quota_order_facts (tenant_id, account_id, supplier_id, store_id, record_id, at, amount)
SELECT e.tenant_id, q.value ->> '$.accountId', coalesce(q.value ->> '$.supplierId', ''), coalesce(q.value ->> '$.storeId', ''), e.id, e.at,
  q.value ->> '$.amount'
FROM events AS e, json_each(CASE WHEN e.type = 'order.blocked' AND json_valid(e.data) THEN e.data ELSE '{}' END, '$.orders') AS q
WHERE q.value ->> '$.accountId' IS NOT NULL AND q.value ->> '$.amount' IS NOT NULL;

-- Fenced like every tenant table while the tenant moves (0010_shards.sql); created after the backfill,
-- so a tenant fenced at migration time still gets its facts.
CREATE TRIGGER quota_order_facts_fence_insert BEFORE INSERT ON quota_order_facts
  WHEN EXISTS (SELECT 1 FROM tenant_fences WHERE tenant_id = NEW.tenant_id)
  BEGIN SELECT RAISE(ABORT, 'tenant_moving'); END;
CREATE TRIGGER quota_order_facts_fence_update BEFORE UPDATE ON quota_order_facts
  WHEN EXISTS (SELECT 1 FROM tenant_fences WHERE tenant_id = OLD.tenant_id)
  BEGIN SELECT RAISE(ABORT, 'tenant_moving'); END;
CREATE TRIGGER quota_order_facts_fence_delete BEFORE DELETE ON quota_order_facts
  WHEN EXISTS (SELECT 1 FROM tenant_fences WHERE tenant_id = OLD.tenant_id AND state = 'MOVING')
  BEGIN SELECT RAISE(ABORT, 'tenant_moving'); END;
