-- The archive's index moves with its tenant (the objects it names stay in the bucket, keyed by
-- tenant): while a tenant moves, the rows the hourly job indexes, re-indexes or drops are captured
-- like every other moved table's (0019), so the catch-up carries them to the new shard.
CREATE TRIGGER history_archive_capture_insert AFTER INSERT ON history_archive
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = NEW.tenant_id)
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES (NEW.tenant_id, 'history_archive', json_array(NEW.tenant_id, NEW.scope, NEW.first_set)); END;
CREATE TRIGGER history_archive_capture_update AFTER UPDATE ON history_archive
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = NEW.tenant_id)
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES (NEW.tenant_id, 'history_archive', json_array(NEW.tenant_id, NEW.scope, NEW.first_set));
    INSERT INTO move_changes (tenant_id, table_name, row_key) SELECT NEW.tenant_id, 'history_archive', json_array(OLD.tenant_id, OLD.scope, OLD.first_set) WHERE json_array(OLD.tenant_id, OLD.scope, OLD.first_set) <> json_array(NEW.tenant_id, NEW.scope, NEW.first_set); END;
CREATE TRIGGER history_archive_capture_delete AFTER DELETE ON history_archive
  WHEN EXISTS (SELECT 1 FROM move_captures WHERE tenant_id = OLD.tenant_id)
  BEGIN INSERT INTO move_changes (tenant_id, table_name, row_key) VALUES (OLD.tenant_id, 'history_archive', json_array(OLD.tenant_id, OLD.scope, OLD.first_set)); END;
