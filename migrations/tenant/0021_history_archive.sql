-- Change history's archive tier: change sets older than the hot window (90 days) leave the shard for
-- compact immutable objects in R2 (gzip NDJSON, src/history/archive/objects.ts), one per tenant, day
-- and Operation (or the tenant's other records), split past a record count. This table says which
-- object holds which sets, so the reads find them without listing the bucket; its row is written in
-- the batch that deletes the sets it stands for, so a set is always in exactly one of the two places.
CREATE TABLE history_archive (
  tenant_id TEXT NOT NULL,
  scope TEXT NOT NULL,            -- the Operation the sets belong to, or '' (rules, the default, accounts, keys, webhooks, settings)
  first_set TEXT NOT NULL,        -- the oldest and newest change set the object holds (ids are time-ordered)
  last_set TEXT NOT NULL,
  first_version INTEGER,          -- for an Operation: the versions its sets made
  last_version INTEGER,
  first_at TEXT NOT NULL,
  last_at TEXT NOT NULL,
  created INTEGER NOT NULL,       -- 1: it holds the Operation's creation (its history starts at version 1)
  sets INTEGER NOT NULL,
  records INTEGER NOT NULL,
  bytes INTEGER NOT NULL,
  sha256 TEXT NOT NULL,           -- of the object's bytes, checked when it is written and when it is read
  object_key TEXT NOT NULL,
  archived_at TEXT NOT NULL,
  PRIMARY KEY (tenant_id, scope, first_set)
) WITHOUT ROWID;
-- The tenant's objects in time order, every scope together: newest first by their last set, oldest
-- first by their first (GET /v1/history reaching into the archive; retention).
CREATE INDEX history_archive_newest ON history_archive (tenant_id, last_set);
CREATE INDEX history_archive_oldest ON history_archive (tenant_id, first_set);

-- How long the tenant keeps its change records, in years (at least 3); NULL: until the tenant is deleted.
ALTER TABLE tenants ADD COLUMN history_retention_years INTEGER CHECK (history_retention_years IS NULL OR history_retention_years >= 3);

-- Fenced like every tenant table while the tenant moves (0010_shards.sql).
CREATE TRIGGER history_archive_fence_insert BEFORE INSERT ON history_archive
  WHEN EXISTS (SELECT 1 FROM tenant_fences WHERE tenant_id = NEW.tenant_id)
  BEGIN SELECT RAISE(ABORT, 'tenant_moving'); END;
CREATE TRIGGER history_archive_fence_update BEFORE UPDATE ON history_archive
  WHEN EXISTS (SELECT 1 FROM tenant_fences WHERE tenant_id = OLD.tenant_id)
  BEGIN SELECT RAISE(ABORT, 'tenant_moving'); END;
CREATE TRIGGER history_archive_fence_delete BEFORE DELETE ON history_archive
  WHEN EXISTS (SELECT 1 FROM tenant_fences WHERE tenant_id = OLD.tenant_id AND state = 'MOVING')
  BEGIN SELECT RAISE(ABORT, 'tenant_moving'); END;
