-- Change history: who changed what from what to what, for every resource, kept for years. A write
-- that changes something adds, in its own batch, one change set (who, when, why, and for an
-- Operation the version it made) and one change record per resource it changed, with only the
-- fields that changed. A dry run, a refused write and a write that changes nothing add none.
--
-- Sized for years at catalogue scale: what every record of one write shares (tenant, Operation,
-- version, actor, request, reason, time) is said once, in the set; a record holds its resource's
-- type and action as one letter each, its id, and its changes as compact JSON
-- ({"field":[previous,next]} for an update, {"field":value} for a create or a delete).
CREATE TABLE change_sets (
  id TEXT PRIMARY KEY,            -- chg_<time-ordered>: a record's id is its set's and its ordinal
  tenant_id TEXT NOT NULL,
  operation_id TEXT,              -- set when the change is to an Operation, its lines or its attachments
  version INTEGER,                -- the Operation's version after the change
  actor TEXT NOT NULL,            -- as on events: key:<id>, user:<id>, schedule, cli
  request_id TEXT,
  reason TEXT,                    -- svc-change-reason
  at TEXT NOT NULL
);
-- Newest first, for the tenant and for one Operation (its versions in order).
CREATE INDEX change_sets_tenant ON change_sets (tenant_id, id);
CREATE INDEX change_sets_operation ON change_sets (operation_id, version) WHERE operation_id IS NOT NULL;

-- Keyed so that one resource's record in a set, and a set's records of one type and action (the
-- lines a write deleted), are each one seek.
CREATE TABLE change_records (
  set_id TEXT NOT NULL,
  resource_type TEXT NOT NULL,    -- o operation, l line, a attachment, r rule, d quota default, c account, k key, w webhook
  action TEXT NOT NULL,           -- c created, u updated, d deleted
  resource_id TEXT NOT NULL,      -- a line's variantExternalId, an attachment's accountId, a rule's id…
  ordinal INTEGER NOT NULL,       -- its place in the set: the record's id is <set id>-<ordinal>
  changes TEXT NOT NULL,
  PRIMARY KEY (set_id, resource_type, action, resource_id)
) WITHOUT ROWID;

-- Fenced like every tenant table while the tenant moves (0010_shards.sql): records come only with
-- their set, in its batch, so the set's fence holds them too.
CREATE TRIGGER change_sets_fence_insert BEFORE INSERT ON change_sets
  WHEN EXISTS (SELECT 1 FROM tenant_fences WHERE tenant_id = NEW.tenant_id)
  BEGIN SELECT RAISE(ABORT, 'tenant_moving'); END;
CREATE TRIGGER change_sets_fence_update BEFORE UPDATE ON change_sets
  WHEN EXISTS (SELECT 1 FROM tenant_fences WHERE tenant_id = OLD.tenant_id)
  BEGIN SELECT RAISE(ABORT, 'tenant_moving'); END;
CREATE TRIGGER change_sets_fence_delete BEFORE DELETE ON change_sets
  WHEN EXISTS (SELECT 1 FROM tenant_fences WHERE tenant_id = OLD.tenant_id AND state = 'MOVING')
  BEGIN SELECT RAISE(ABORT, 'tenant_moving'); END;
