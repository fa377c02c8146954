-- Events are read in commit order (rowid), not id order: ids are minted before a batch commits, so
-- two concurrent writers can commit out of id order and a poller using `after` would skip one.
-- An index on (tenant_id) carries the rowid, so it serves "this tenant's events in commit order".
CREATE INDEX events_tenant_commit_order ON events (tenant_id);
CREATE INDEX events_operation_commit_order ON events (operation_id);
