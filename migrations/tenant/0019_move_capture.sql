-- Moving a tenant while it keeps serving (src/tenants/move.ts, docs/tenants-and-shards.md). The move
-- copies the tenant's rows to another shard in chunks while its reads and writes go on, so the shard
-- it copies from records which of the tenant's rows every write changed, in that write's own
-- transaction: the move then copies those rows again ("catches up") until the copy equals the source,
-- and fences writes only for the last few. Triggers record every write path alike, and only for a
-- tenant being captured: other tenants' writes pay one lookup in an empty-or-tiny table per row, as for
-- the fence (0010_shards.sql).

-- The tenants whose writes are recorded on this shard: the one a move copies from, and the one a
-- finished move landed on while its old copy is kept (so the move can be reversed by catching up).
CREATE TABLE move_captures (
  tenant_id TEXT PRIMARY KEY,
  since TEXT NOT NULL
);

-- One row per row written: its table and its primary key (a JSON array of the key's values), in commit
-- order (AUTOINCREMENT: a sequence number is never reused, even after the rows before it are purged).
CREATE TABLE move_changes (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  tenant_id TEXT NOT NULL,
  table_name TEXT NOT NULL,
  row_key TEXT NOT NULL
);
CREATE INDEX move_changes_tenant ON move_changes (tenant_id, seq);

-- On every tenant table: after each insert, update and delete of a captured tenant's row, its key. An
-- update that changes the key records the old key too (the row left it). change_records has no tenant
-- column: its set's tenant is the record's.
CREATE TRIGGER tenants_capture_insert AFTER INSERT ON tenants
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = NEW.id)
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES (NEW.id, 'tenants', json_array(NEW.id)); END;
CREATE TRIGGER tenants_capture_update AFTER UPDATE ON tenants
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = NEW.id)
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES (NEW.id, 'tenants', json_array(NEW.id));
    INSERT INTO move_changes (tenant_id, table_name, row_key) SELECT NEW.id, 'tenants', json_array(OLD.id) WHERE json_array(OLD.id) <> json_array(NEW.id); END;
CREATE TRIGGER tenants_capture_delete AFTER DELETE ON tenants
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = OLD.id)
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES (OLD.id, 'tenants', json_array(OLD.id)); END;
CREATE TRIGGER operations_capture_insert AFTER INSERT ON operations
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = NEW.tenant_id)
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES (NEW.tenant_id, 'operations', json_array(NEW.id)); END;
CREATE TRIGGER operations_capture_update AFTER UPDATE ON operations
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = NEW.tenant_id)
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES (NEW.tenant_id, 'operations', json_array(NEW.id));
    INSERT INTO move_changes (tenant_id, table_name, row_key) SELECT NEW.tenant_id, 'operations', json_array(OLD.id) WHERE json_array(OLD.id) <> json_array(NEW.id); END;
CREATE TRIGGER operations_capture_delete AFTER DELETE ON operations
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = OLD.tenant_id)
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES (OLD.tenant_id, 'operations', json_array(OLD.id)); END;
CREATE TRIGGER operation_owners_capture_insert AFTER INSERT ON operation_owners
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = NEW.tenant_id)
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES (NEW.tenant_id, 'operation_owners', json_array(NEW.tenant_id, NEW.user_id, NEW.operation_id)); END;
CREATE TRIGGER operation_owners_capture_update AFTER UPDATE ON operation_owners
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = NEW.tenant_id)
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES (NEW.tenant_id, 'operation_owners', json_array(NEW.tenant_id, NEW.user_id, NEW.operation_id));
    INSERT INTO move_changes (tenant_id, table_name, row_key) SELECT NEW.tenant_id, 'operation_owners', json_array(OLD.tenant_id, OLD.user_id, OLD.operation_id) WHERE json_array(OLD.tenant_id, OLD.user_id, OLD.operation_id) <> json_array(NEW.tenant_id, NEW.user_id, NEW.operation_id); END;
CREATE TRIGGER operation_owners_capture_delete AFTER DELETE ON operation_owners
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = OLD.tenant_id)
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES (OLD.tenant_id, 'operation_owners', json_array(OLD.tenant_id, OLD.user_id, OLD.operation_id)); END;
CREATE TRIGGER operation_lines_capture_insert AFTER INSERT ON operation_lines
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = NEW.tenant_id)
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES (NEW.tenant_id, 'operation_lines', json_array(NEW.operation_id, NEW.variant_external_id)); END;
CREATE TRIGGER operation_lines_capture_update AFTER UPDATE ON operation_lines
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = NEW.tenant_id)
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES (NEW.tenant_id, 'operation_lines', json_array(NEW.operation_id, NEW.variant_external_id));
    INSERT INTO move_changes (tenant_id, table_name, row_key) SELECT NEW.tenant_id, 'operation_lines', json_array(OLD.operation_id, OLD.variant_external_id) WHERE json_array(OLD.operation_id, OLD.variant_external_id) <> json_array(NEW.operation_id, NEW.variant_external_id); END;
CREATE TRIGGER operation_lines_capture_delete AFTER DELETE ON operation_lines
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = OLD.tenant_id)
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES (OLD.tenant_id, 'operation_lines', json_array(OLD.operation_id, OLD.variant_external_id)); END;
CREATE TRIGGER accounts_capture_insert AFTER INSERT ON accounts
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = NEW.tenant_id)
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES (NEW.tenant_id, 'accounts', json_array(NEW.tenant_id, NEW.account_id)); END;
CREATE TRIGGER accounts_capture_update AFTER UPDATE ON accounts
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = NEW.tenant_id)
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES (NEW.tenant_id, 'accounts', json_array(NEW.tenant_id, NEW.account_id));
    INSERT INTO move_changes (tenant_id, table_name, row_key) SELECT NEW.tenant_id, 'accounts', json_array(OLD.tenant_id, OLD.account_id) WHERE json_array(OLD.tenant_id, OLD.account_id) <> json_array(NEW.tenant_id, NEW.account_id); END;
CREATE TRIGGER accounts_capture_delete AFTER DELETE ON accounts
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = OLD.tenant_id)
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES (OLD.tenant_id, 'accounts', json_array(OLD.tenant_id, OLD.account_id)); END;
CREATE TRIGGER account_users_capture_insert AFTER INSERT ON account_users
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = NEW.tenant_id)
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES (NEW.tenant_id, 'account_users', json_array(NEW.tenant_id, NEW.account_id, NEW.user_id)); END;
CREATE TRIGGER account_users_capture_update AFTER UPDATE ON account_users
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = NEW.tenant_id)
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES (NEW.tenant_id, 'account_users', json_array(NEW.tenant_id, NEW.account_id, NEW.user_id));
    INSERT INTO move_changes (tenant_id, table_name, row_key) SELECT NEW.tenant_id, 'account_users', json_array(OLD.tenant_id, OLD.account_id, OLD.user_id) WHERE json_array(OLD.tenant_id, OLD.account_id, OLD.user_id) <> json_array(NEW.tenant_id, NEW.account_id, NEW.user_id); END;
CREATE TRIGGER account_users_capture_delete AFTER DELETE ON account_users
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = OLD.tenant_id)
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES (OLD.tenant_id, 'account_users', json_array(OLD.tenant_id, OLD.account_id, OLD.user_id)); END;
CREATE TRIGGER operation_accounts_capture_insert AFTER INSERT ON operation_accounts
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = NEW.tenant_id)
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES (NEW.tenant_id, 'operation_accounts', json_array(NEW.operation_id, NEW.account_id)); END;
CREATE TRIGGER operation_accounts_capture_update AFTER UPDATE ON operation_accounts
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = NEW.tenant_id)
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES (NEW.tenant_id, 'operation_accounts', json_array(NEW.operation_id, NEW.account_id));
    INSERT INTO move_changes (tenant_id, table_name, row_key) SELECT NEW.tenant_id, 'operation_accounts', json_array(OLD.operation_id, OLD.account_id) WHERE json_array(OLD.operation_id, OLD.account_id) <> json_array(NEW.operation_id, NEW.account_id); END;
CREATE TRIGGER operation_accounts_capture_delete AFTER DELETE ON operation_accounts
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = OLD.tenant_id)
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES (OLD.tenant_id, 'operation_accounts', json_array(OLD.operation_id, OLD.account_id)); END;
CREATE TRIGGER operation_approvals_capture_insert AFTER INSERT ON operation_approvals
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = NEW.tenant_id)
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES (NEW.tenant_id, 'operation_approvals', json_array(NEW.operation_id, NEW.version, NEW.approver)); END;
CREATE TRIGGER operation_approvals_capture_update AFTER UPDATE ON operation_approvals
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = NEW.tenant_id)
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES (NEW.tenant_id, 'operation_approvals', json_array(NEW.operation_id, NEW.version, NEW.approver));
    INSERT INTO move_changes (tenant_id, table_name, row_key) SELECT NEW.tenant_id, 'operation_approvals', json_array(OLD.operation_id, OLD.version, OLD.approver) WHERE json_array(OLD.operation_id, OLD.version, OLD.approver) <> json_array(NEW.operation_id, NEW.version, NEW.approver); END;
CREATE TRIGGER operation_approvals_capture_delete AFTER DELETE ON operation_approvals
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = OLD.tenant_id)
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES (OLD.tenant_id, 'operation_approvals', json_array(OLD.operation_id, OLD.version, OLD.approver)); END;
CREATE TRIGGER quota_rules_capture_insert AFTER INSERT ON quota_rules
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = NEW.tenant_id)
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES (NEW.tenant_id, 'quota_rules', json_array(NEW.id)); END;
CREATE TRIGGER quota_rules_capture_update AFTER UPDATE ON quota_rules
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = NEW.tenant_id)
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES (NEW.tenant_id, 'quota_rules', json_array(NEW.id));
    INSERT INTO move_changes (tenant_id, table_name, row_key) SELECT NEW.tenant_id, 'quota_rules', json_array(OLD.id) WHERE json_array(OLD.id) <> json_array(NEW.id); END;
CREATE TRIGGER quota_rules_capture_delete AFTER DELETE ON quota_rules
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = OLD.tenant_id)
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES (OLD.tenant_id, 'quota_rules', json_array(OLD.id)); END;
CREATE TRIGGER carts_capture_insert AFTER INSERT ON carts
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = NEW.tenant_id)
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES (NEW.tenant_id, 'carts', json_array(NEW.id)); END;
CREATE TRIGGER carts_capture_update AFTER UPDATE ON carts
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = NEW.tenant_id)
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES (NEW.tenant_id, 'carts', json_array(NEW.id));
    INSERT INTO move_changes (tenant_id, table_name, row_key) SELECT NEW.tenant_id, 'carts', json_array(OLD.id) WHERE json_array(OLD.id) <> json_array(NEW.id); END;
CREATE TRIGGER carts_capture_delete AFTER DELETE ON carts
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = OLD.tenant_id)
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES (OLD.tenant_id, 'carts', json_array(OLD.id)); END;
CREATE TRIGGER orders_capture_insert AFTER INSERT ON orders
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = NEW.tenant_id)
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES (NEW.tenant_id, 'orders', json_array(NEW.id)); END;
CREATE TRIGGER orders_capture_update AFTER UPDATE ON orders
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = NEW.tenant_id)
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES (NEW.tenant_id, 'orders', json_array(NEW.id));
    INSERT INTO move_changes (tenant_id, table_name, row_key) SELECT NEW.tenant_id, 'orders', json_array(OLD.id) WHERE json_array(OLD.id) <> json_array(NEW.id); END;
CREATE TRIGGER orders_capture_delete AFTER DELETE ON orders
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = OLD.tenant_id)
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES (OLD.tenant_id, 'orders', json_array(OLD.id)); END;
CREATE TRIGGER events_capture_insert AFTER INSERT ON events
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = NEW.tenant_id)
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES (NEW.tenant_id, 'events', json_array(NEW.id)); END;
CREATE TRIGGER events_capture_update AFTER UPDATE ON events
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = NEW.tenant_id)
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES (NEW.tenant_id, 'events', json_array(NEW.id));
    INSERT INTO move_changes (tenant_id, table_name, row_key) SELECT NEW.tenant_id, 'events', json_array(OLD.id) WHERE json_array(OLD.id) <> json_array(NEW.id); END;
CREATE TRIGGER events_capture_delete AFTER DELETE ON events
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = OLD.tenant_id)
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES (OLD.tenant_id, 'events', json_array(OLD.id)); END;
CREATE TRIGGER quota_order_facts_capture_insert AFTER INSERT ON quota_order_facts
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = NEW.tenant_id)
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES (NEW.tenant_id, 'quota_order_facts', json_array(NEW.tenant_id, NEW.account_id, NEW.supplier_id, NEW.store_id, NEW.record_id)); END;
CREATE TRIGGER quota_order_facts_capture_update AFTER UPDATE ON quota_order_facts
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = NEW.tenant_id)
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES (NEW.tenant_id, 'quota_order_facts', json_array(NEW.tenant_id, NEW.account_id, NEW.supplier_id, NEW.store_id, NEW.record_id));
    INSERT INTO move_changes (tenant_id, table_name, row_key) SELECT NEW.tenant_id, 'quota_order_facts', json_array(OLD.tenant_id, OLD.account_id, OLD.supplier_id, OLD.store_id, OLD.record_id) WHERE json_array(OLD.tenant_id, OLD.account_id, OLD.supplier_id, OLD.store_id, OLD.record_id) <> json_array(NEW.tenant_id, NEW.account_id, NEW.supplier_id, NEW.store_id, NEW.record_id); END;
CREATE TRIGGER quota_order_facts_capture_delete AFTER DELETE ON quota_order_facts
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = OLD.tenant_id)
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES (OLD.tenant_id, 'quota_order_facts', json_array(OLD.tenant_id, OLD.account_id, OLD.supplier_id, OLD.store_id, OLD.record_id)); END;
CREATE TRIGGER idempotency_keys_capture_insert AFTER INSERT ON idempotency_keys
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = NEW.tenant_id)
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES (NEW.tenant_id, 'idempotency_keys', json_array(NEW.tenant_id, NEW.caller, NEW.idempotency_key)); END;
CREATE TRIGGER idempotency_keys_capture_update AFTER UPDATE ON idempotency_keys
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = NEW.tenant_id)
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES (NEW.tenant_id, 'idempotency_keys', json_array(NEW.tenant_id, NEW.caller, NEW.idempotency_key));
    INSERT INTO move_changes (tenant_id, table_name, row_key) SELECT NEW.tenant_id, 'idempotency_keys', json_array(OLD.tenant_id, OLD.caller, OLD.idempotency_key) WHERE json_array(OLD.tenant_id, OLD.caller, OLD.idempotency_key) <> json_array(NEW.tenant_id, NEW.caller, NEW.idempotency_key); END;
CREATE TRIGGER idempotency_keys_capture_delete AFTER DELETE ON idempotency_keys
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = OLD.tenant_id)
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES (OLD.tenant_id, 'idempotency_keys', json_array(OLD.tenant_id, OLD.caller, OLD.idempotency_key)); END;
CREATE TRIGGER webhooks_capture_insert AFTER INSERT ON webhooks
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = NEW.tenant_id)
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES (NEW.tenant_id, 'webhooks', json_array(NEW.id)); END;
CREATE TRIGGER webhooks_capture_update AFTER UPDATE ON webhooks
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = NEW.tenant_id)
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES (NEW.tenant_id, 'webhooks', json_array(NEW.id));
    INSERT INTO move_changes (tenant_id, table_name, row_key) SELECT NEW.tenant_id, 'webhooks', json_array(OLD.id) WHERE json_array(OLD.id) <> json_array(NEW.id); END;
CREATE TRIGGER webhooks_capture_delete AFTER DELETE ON webhooks
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = OLD.tenant_id)
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES (OLD.tenant_id, 'webhooks', json_array(OLD.id)); END;
CREATE TRIGGER webhook_deliveries_capture_insert AFTER INSERT ON webhook_deliveries
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = NEW.tenant_id)
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES (NEW.tenant_id, 'webhook_deliveries', json_array(NEW.id)); END;
CREATE TRIGGER webhook_deliveries_capture_update AFTER UPDATE ON webhook_deliveries
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = NEW.tenant_id)
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES (NEW.tenant_id, 'webhook_deliveries', json_array(NEW.id));
    INSERT INTO move_changes (tenant_id, table_name, row_key) SELECT NEW.tenant_id, 'webhook_deliveries', json_array(OLD.id) WHERE json_array(OLD.id) <> json_array(NEW.id); END;
CREATE TRIGGER webhook_deliveries_capture_delete AFTER DELETE ON webhook_deliveries
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = OLD.tenant_id)
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES (OLD.tenant_id, 'webhook_deliveries', json_array(OLD.id)); END;
CREATE TRIGGER change_sets_capture_insert AFTER INSERT ON change_sets
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = NEW.tenant_id)
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES (NEW.tenant_id, 'change_sets', json_array(NEW.id)); END;
CREATE TRIGGER change_sets_capture_update AFTER UPDATE ON change_sets
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = NEW.tenant_id)
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES (NEW.tenant_id, 'change_sets', json_array(NEW.id));
    INSERT INTO move_changes (tenant_id, table_name, row_key) SELECT NEW.tenant_id, 'change_sets', json_array(OLD.id) WHERE json_array(OLD.id) <> json_array(NEW.id); END;
CREATE TRIGGER change_sets_capture_delete AFTER DELETE ON change_sets
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = OLD.tenant_id)
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES (OLD.tenant_id, 'change_sets', json_array(OLD.id)); END;
CREATE TRIGGER change_records_capture_insert AFTER INSERT ON change_records
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = (SELECT tenant_id FROM change_sets WHERE id = NEW.set_id))
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES ((SELECT tenant_id FROM change_sets WHERE id = NEW.set_id), 'change_records', json_array(NEW.set_id, NEW.resource_type, NEW.action, NEW.resource_id)); END;
CREATE TRIGGER change_records_capture_update AFTER UPDATE ON change_records
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = (SELECT tenant_id FROM change_sets WHERE id = NEW.set_id))
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES ((SELECT tenant_id FROM change_sets WHERE id = NEW.set_id), 'change_records', json_array(NEW.set_id, NEW.resource_type, NEW.action, NEW.resource_id));
    INSERT INTO move_changes (tenant_id, table_name, row_key) SELECT (SELECT tenant_id FROM change_sets WHERE id = NEW.set_id), 'change_records', json_array(OLD.set_id, OLD.resource_type, OLD.action, OLD.resource_id) WHERE json_array(OLD.set_id, OLD.resource_type, OLD.action, OLD.resource_id) <> json_array(NEW.set_id, NEW.resource_type, NEW.action, NEW.resource_id); END;
CREATE TRIGGER change_records_capture_delete AFTER DELETE ON change_records
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = (SELECT tenant_id FROM change_sets WHERE id = OLD.set_id))
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES ((SELECT tenant_id FROM change_sets WHERE id = OLD.set_id), 'change_records', json_array(OLD.set_id, OLD.resource_type, OLD.action, OLD.resource_id)); END;
