-- A shard database holds whole tenants. Keys and the tenant directory moved to the control database
-- (migrations/control); the tenant's default locale lives in its directory entry.
DROP INDEX api_keys_tenant_created;
DROP INDEX api_keys_tenant_user;
DROP TABLE api_keys;
ALTER TABLE tenants DROP COLUMN default_locale;

-- A tenant being moved to another shard is fenced here: from the moment the move starts, no write
-- to its rows commits on this shard (the transaction aborts with 'tenant_moving'), whichever code path
-- or stale routing sent it. MOVING also keeps its rows from being deleted; LEFT (the copy is
-- verified and the directory points elsewhere) lets the move delete them, still refusing writes.
CREATE TABLE tenant_fences (
  tenant_id TEXT PRIMARY KEY,
  state TEXT NOT NULL CHECK (state IN ('MOVING', 'LEFT')),
  since TEXT NOT NULL
);

CREATE TRIGGER tenants_fence_insert BEFORE INSERT ON tenants
  WHEN EXISTS (SELECT 1 FROM tenant_fences WHERE tenant_id = NEW.id)
  BEGIN SELECT RAISE(ABORT, 'tenant_moving'); END;
CREATE TRIGGER tenants_fence_update BEFORE UPDATE ON tenants
  WHEN EXISTS (SELECT 1 FROM tenant_fences WHERE tenant_id = OLD.id)
  BEGIN SELECT RAISE(ABORT, 'tenant_moving'); END;
CREATE TRIGGER tenants_fence_delete BEFORE DELETE ON tenants
  WHEN EXISTS (SELECT 1 FROM tenant_fences WHERE tenant_id = OLD.id AND state = 'MOVING')
  BEGIN SELECT RAISE(ABORT, 'tenant_moving'); END;

CREATE TRIGGER operations_fence_insert BEFORE INSERT ON operations
  WHEN EXISTS (SELECT 1 FROM tenant_fences WHERE tenant_id = NEW.tenant_id)
  BEGIN SELECT RAISE(ABORT, 'tenant_moving'); END;
CREATE TRIGGER operations_fence_update BEFORE UPDATE ON operations
  WHEN EXISTS (SELECT 1 FROM tenant_fences WHERE tenant_id = OLD.tenant_id)
  BEGIN SELECT RAISE(ABORT, 'tenant_moving'); END;
CREATE TRIGGER operations_fence_delete BEFORE DELETE ON operations
  WHEN EXISTS (SELECT 1 FROM tenant_fences WHERE tenant_id = OLD.tenant_id AND state = 'MOVING')
  BEGIN SELECT RAISE(ABORT, 'tenant_moving'); END;

CREATE TRIGGER operation_owners_fence_insert BEFORE INSERT ON operation_owners
  WHEN EXISTS (SELECT 1 FROM tenant_fences WHERE tenant_id = NEW.tenant_id)
  BEGIN SELECT RAISE(ABORT, 'tenant_moving'); END;
CREATE TRIGGER operation_owners_fence_update BEFORE UPDATE ON operation_owners
  WHEN EXISTS (SELECT 1 FROM tenant_fences WHERE tenant_id = OLD.tenant_id)
  BEGIN SELECT RAISE(ABORT, 'tenant_moving'); END;
CREATE TRIGGER operation_owners_fence_delete BEFORE DELETE ON operation_owners
  WHEN EXISTS (SELECT 1 FROM tenant_fences WHERE tenant_id = OLD.tenant_id AND state = 'MOVING')
  BEGIN SELECT RAISE(ABORT, 'tenant_moving'); END;

CREATE TRIGGER operation_lines_fence_insert BEFORE INSERT ON operation_lines
  WHEN EXISTS (SELECT 1 FROM tenant_fences WHERE tenant_id = NEW.tenant_id)
  BEGIN SELECT RAISE(ABORT, 'tenant_moving'); END;
CREATE TRIGGER operation_lines_fence_update BEFORE UPDATE ON operation_lines
  WHEN EXISTS (SELECT 1 FROM tenant_fences WHERE tenant_id = OLD.tenant_id)
  BEGIN SELECT RAISE(ABORT, 'tenant_moving'); END;
CREATE TRIGGER operation_lines_fence_delete BEFORE DELETE ON operation_lines
  WHEN EXISTS (SELECT 1 FROM tenant_fences WHERE tenant_id = OLD.tenant_id AND state = 'MOVING')
  BEGIN SELECT RAISE(ABORT, 'tenant_moving'); END;

CREATE TRIGGER accounts_fence_insert BEFORE INSERT ON accounts
  WHEN EXISTS (SELECT 1 FROM tenant_fences WHERE tenant_id = NEW.tenant_id)
  BEGIN SELECT RAISE(ABORT, 'tenant_moving'); END;
CREATE TRIGGER accounts_fence_update BEFORE UPDATE ON accounts
  WHEN EXISTS (SELECT 1 FROM tenant_fences WHERE tenant_id = OLD.tenant_id)
  BEGIN SELECT RAISE(ABORT, 'tenant_moving'); END;
CREATE TRIGGER accounts_fence_delete BEFORE DELETE ON accounts
  WHEN EXISTS (SELECT 1 FROM tenant_fences WHERE tenant_id = OLD.tenant_id AND state = 'MOVING')
  BEGIN SELECT RAISE(ABORT, 'tenant_moving'); END;

CREATE TRIGGER account_users_fence_insert BEFORE INSERT ON account_users
  WHEN EXISTS (SELECT 1 FROM tenant_fences WHERE tenant_id = NEW.tenant_id)
  BEGIN SELECT RAISE(ABORT, 'tenant_moving'); END;
CREATE TRIGGER account_users_fence_update BEFORE UPDATE ON account_users
  WHEN EXISTS (SELECT 1 FROM tenant_fences WHERE tenant_id = OLD.tenant_id)
  BEGIN SELECT RAISE(ABORT, 'tenant_moving'); END;
CREATE TRIGGER account_users_fence_delete BEFORE DELETE ON account_users
  WHEN EXISTS (SELECT 1 FROM tenant_fences WHERE tenant_id = OLD.tenant_id AND state = 'MOVING')
  BEGIN SELECT RAISE(ABORT, 'tenant_moving'); END;

CREATE TRIGGER operation_accounts_fence_insert BEFORE INSERT ON operation_accounts
  WHEN EXISTS (SELECT 1 FROM tenant_fences WHERE tenant_id = NEW.tenant_id)
  BEGIN SELECT RAISE(ABORT, 'tenant_moving'); END;
CREATE TRIGGER operation_accounts_fence_update BEFORE UPDATE ON operation_accounts
  WHEN EXISTS (SELECT 1 FROM tenant_fences WHERE tenant_id = OLD.tenant_id)
  BEGIN SELECT RAISE(ABORT, 'tenant_moving'); END;
CREATE TRIGGER operation_accounts_fence_delete BEFORE DELETE ON operation_accounts
  WHEN EXISTS (SELECT 1 FROM tenant_fences WHERE tenant_id = OLD.tenant_id AND state = 'MOVING')
  BEGIN SELECT RAISE(ABORT, 'tenant_moving'); END;

CREATE TRIGGER quota_rules_fence_insert BEFORE INSERT ON quota_rules
  WHEN EXISTS (SELECT 1 FROM tenant_fences WHERE tenant_id = NEW.tenant_id)
  BEGIN SELECT RAISE(ABORT, 'tenant_moving'); END;
CREATE TRIGGER quota_rules_fence_update BEFORE UPDATE ON quota_rules
  WHEN EXISTS (SELECT 1 FROM tenant_fences WHERE tenant_id = OLD.tenant_id)
  BEGIN SELECT RAISE(ABORT, 'tenant_moving'); END;
CREATE TRIGGER quota_rules_fence_delete BEFORE DELETE ON quota_rules
  WHEN EXISTS (SELECT 1 FROM tenant_fences WHERE tenant_id = OLD.tenant_id AND state = 'MOVING')
  BEGIN SELECT RAISE(ABORT, 'tenant_moving'); END;

CREATE TRIGGER carts_fence_insert BEFORE INSERT ON carts
  WHEN EXISTS (SELECT 1 FROM tenant_fences WHERE tenant_id = NEW.tenant_id)
  BEGIN SELECT RAISE(ABORT, 'tenant_moving'); END;
CREATE TRIGGER carts_fence_update BEFORE UPDATE ON carts
  WHEN EXISTS (SELECT 1 FROM tenant_fences WHERE tenant_id = OLD.tenant_id)
  BEGIN SELECT RAISE(ABORT, 'tenant_moving'); END;
CREATE TRIGGER carts_fence_delete BEFORE DELETE ON carts
  WHEN EXISTS (SELECT 1 FROM tenant_fences WHERE tenant_id = OLD.tenant_id AND state = 'MOVING')
  BEGIN SELECT RAISE(ABORT, 'tenant_moving'); END;

CREATE TRIGGER orders_fence_insert BEFORE INSERT ON orders
  WHEN EXISTS (SELECT 1 FROM tenant_fences WHERE tenant_id = NEW.tenant_id)
  BEGIN SELECT RAISE(ABORT, 'tenant_moving'); END;
CREATE TRIGGER orders_fence_update BEFORE UPDATE ON orders
  WHEN EXISTS (SELECT 1 FROM tenant_fences WHERE tenant_id = OLD.tenant_id)
  BEGIN SELECT RAISE(ABORT, 'tenant_moving'); END;
CREATE TRIGGER orders_fence_delete BEFORE DELETE ON orders
  WHEN EXISTS (SELECT 1 FROM tenant_fences WHERE tenant_id = OLD.tenant_id AND state = 'MOVING')
  BEGIN SELECT RAISE(ABORT, 'tenant_moving'); END;

CREATE TRIGGER events_fence_insert BEFORE INSERT ON events
  WHEN EXISTS (SELECT 1 FROM tenant_fences WHERE tenant_id = NEW.tenant_id)
  BEGIN SELECT RAISE(ABORT, 'tenant_moving'); END;
CREATE TRIGGER events_fence_update BEFORE UPDATE ON events
  WHEN EXISTS (SELECT 1 FROM tenant_fences WHERE tenant_id = OLD.tenant_id)
  BEGIN SELECT RAISE(ABORT, 'tenant_moving'); END;
CREATE TRIGGER events_fence_delete BEFORE DELETE ON events
  WHEN EXISTS (SELECT 1 FROM tenant_fences WHERE tenant_id = OLD.tenant_id AND state = 'MOVING')
  BEGIN SELECT RAISE(ABORT, 'tenant_moving'); END;

CREATE TRIGGER idempotency_keys_fence_insert BEFORE INSERT ON idempotency_keys
  WHEN EXISTS (SELECT 1 FROM tenant_fences WHERE tenant_id = NEW.tenant_id)
  BEGIN SELECT RAISE(ABORT, 'tenant_moving'); END;
CREATE TRIGGER idempotency_keys_fence_update BEFORE UPDATE ON idempotency_keys
  WHEN EXISTS (SELECT 1 FROM tenant_fences WHERE tenant_id = OLD.tenant_id)
  BEGIN SELECT RAISE(ABORT, 'tenant_moving'); END;
CREATE TRIGGER idempotency_keys_fence_delete BEFORE DELETE ON idempotency_keys
  WHEN EXISTS (SELECT 1 FROM tenant_fences WHERE tenant_id = OLD.tenant_id AND state = 'MOVING')
  BEGIN SELECT RAISE(ABORT, 'tenant_moving'); END;
