-- Four-eyes approval before an Operation goes ACTIVE.
--
-- The tenant's setting lives on its row, beside the quota default: how many valid approvals a change
-- into ACTIVE needs (0, the default: approvals are off) and whether the author of the version may be
-- one of them. An activation's batch reads it in the same statement as the approvals it counts.
ALTER TABLE tenants ADD COLUMN approvals_required INTEGER NOT NULL DEFAULT 0 CHECK (approvals_required BETWEEN 0 AND 5);
ALTER TABLE tenants ADD COLUMN approvals_allow_self INTEGER NOT NULL DEFAULT 0 CHECK (approvals_allow_self IN (0, 1));

-- Decisions, each bound to the version of the Operation it was made on: one per approver and version
-- (deciding again replaces it, keeping its id). A decision counts only while its version is the
-- Operation's, so any change that bumps the version voids the decisions before it; they stay listed.
-- Keyed by the Operation first, like its lines: an activation counts one version's decisions in one seek.
CREATE TABLE operation_approvals (
  operation_id TEXT NOT NULL,
  version INTEGER NOT NULL,
  approver TEXT NOT NULL,         -- as actors are named: user:<userId> (the key's user) or key:<keyId>
  tenant_id TEXT NOT NULL,
  id TEXT NOT NULL,               -- apr_<time-ordered>
  decision TEXT NOT NULL CHECK (decision IN ('APPROVE', 'REJECT')),
  comment TEXT,
  decided_at TEXT NOT NULL,
  PRIMARY KEY (operation_id, version, approver)
) WITHOUT ROWID;
-- The list of an Operation's decisions, newest first.
CREATE INDEX operation_approvals_list ON operation_approvals (operation_id, decided_at, id);

-- Fenced like every tenant table while the tenant moves (0010_shards.sql).
CREATE TRIGGER operation_approvals_fence_insert BEFORE INSERT ON operation_approvals
  WHEN EXISTS (SELECT 1 FROM tenant_fences WHERE tenant_id = NEW.tenant_id)
  BEGIN SELECT RAISE(ABORT, 'tenant_moving'); END;
CREATE TRIGGER operation_approvals_fence_update BEFORE UPDATE ON operation_approvals
  WHEN EXISTS (SELECT 1 FROM tenant_fences WHERE tenant_id = OLD.tenant_id)
  BEGIN SELECT RAISE(ABORT, 'tenant_moving'); END;
CREATE TRIGGER operation_approvals_fence_delete BEFORE DELETE ON operation_approvals
  WHEN EXISTS (SELECT 1 FROM tenant_fences WHERE tenant_id = OLD.tenant_id AND state = 'MOVING')
  BEGIN SELECT RAISE(ABORT, 'tenant_moving'); END;
