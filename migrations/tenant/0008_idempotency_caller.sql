-- Idempotency keys belong to the caller (tenant, role and user), not to the whole tenant: another
-- user of the tenant resending a key must not get the first user's answer. SQLite cannot change a
-- primary key in place, so the table is rebuilt; stored answers expire within 48 h anyway.
CREATE TABLE idempotency_keys_by_caller (
  tenant_id TEXT NOT NULL,
  -- "ROLE:userId" (userId empty for OPERATOR keys).
  caller TEXT NOT NULL DEFAULT '',
  idempotency_key TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('PENDING', 'DONE')),
  response_status INTEGER,
  response_headers TEXT,
  response_body TEXT,
  created_at TEXT NOT NULL,
  PRIMARY KEY (tenant_id, caller, idempotency_key)
) WITHOUT ROWID;
INSERT INTO idempotency_keys_by_caller
  (tenant_id, caller, idempotency_key, fingerprint, state, response_status, response_headers, response_body, created_at)
  SELECT tenant_id, 'OPERATOR:', idempotency_key, fingerprint, state, response_status, response_headers, response_body, created_at
  FROM idempotency_keys;
DROP TABLE idempotency_keys;
ALTER TABLE idempotency_keys_by_caller RENAME TO idempotency_keys;
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
