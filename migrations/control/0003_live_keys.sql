-- Which keys were given live connections to which Operations (a ticket issued): a key revoked has its
-- connections closed by those Operations' objects at once (src/live/), without waking the others.
CREATE TABLE live_keys (
  key_id TEXT NOT NULL,
  operation_id TEXT NOT NULL,
  tenant_id TEXT NOT NULL,
  issued_at TEXT NOT NULL,
  PRIMARY KEY (key_id, operation_id)
) WITHOUT ROWID;
CREATE INDEX live_keys_tenant ON live_keys (tenant_id);
