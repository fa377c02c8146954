-- Keys managed over the API: a label, the first characters of the key (to tell keys apart
-- without storing them), an optional expiry. Keys issued before this migration have no prefix.
ALTER TABLE api_keys ADD COLUMN name TEXT;
ALTER TABLE api_keys ADD COLUMN prefix TEXT;
ALTER TABLE api_keys ADD COLUMN expires_at TEXT;
-- GET /v1/keys: the tenant's keys in creation order, optionally of one user.
CREATE INDEX api_keys_tenant_created ON api_keys (tenant_id, created_at, id);
CREATE INDEX api_keys_tenant_user ON api_keys (tenant_id, user_id, created_at, id);
