-- The control database: which shard holds each tenant, and what authentication needs (keys).
-- Every tenant's own data lives in exactly one shard database (migrations/tenant).

CREATE TABLE tenant_directory (
  tenant_id TEXT PRIMARY KEY,
  -- The binding name of the shard database holding the tenant's rows (SHARD_…).
  shard TEXT NOT NULL,
  default_locale TEXT NOT NULL DEFAULT 'en',
  -- MOVING while a move copies the tenant to `moving_to`: its writes answer 503 tenant_moving.
  state TEXT NOT NULL DEFAULT 'ACTIVE' CHECK (state IN ('ACTIVE', 'MOVING')),
  moving_to TEXT,
  created_at TEXT NOT NULL,
  moved_at TEXT
);
-- Placement counts the tenants of each shard.
CREATE INDEX tenant_directory_shard ON tenant_directory (shard);

CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL REFERENCES tenant_directory(tenant_id),
  role TEXT NOT NULL CHECK (role IN ('OPERATOR', 'ACCOUNT')),
  user_id TEXT,
  key_hash TEXT NOT NULL UNIQUE,
  name TEXT,
  -- The key's first characters, to tell keys apart without storing them.
  prefix TEXT,
  expires_at TEXT,
  revoked_at TEXT,
  created_at TEXT NOT NULL
);
-- GET /v1/keys: the tenant's keys in creation order, optionally of one user.
CREATE INDEX api_keys_tenant_created ON api_keys (tenant_id, created_at, id);
CREATE INDEX api_keys_tenant_user ON api_keys (tenant_id, user_id, created_at, id);
