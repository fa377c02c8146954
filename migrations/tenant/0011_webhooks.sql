-- Webhooks: subscriptions to the change log, and one delivery row per (subscription, event).
-- The events table is the outbox: an event is "handed on" once its deliveries exist (handed_on_at);
-- a sweep hands on every event a crash left behind, so nothing committed is lost.
ALTER TABLE events ADD COLUMN handed_on_at TEXT;
-- Every event recorded before webhooks existed is handed on already (there was no one to tell).
UPDATE events SET handed_on_at = at;
CREATE INDEX events_not_handed_on ON events (tenant_id) WHERE handed_on_at IS NULL;

CREATE TABLE webhooks (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL,
  url TEXT NOT NULL,
  -- JSON array of event types and patterns ("operation.*", "*").
  event_types TEXT NOT NULL,
  description TEXT,
  secret TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX webhooks_tenant_created ON webhooks (tenant_id, created_at, id);

CREATE TABLE webhook_deliveries (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL,
  webhook_id TEXT NOT NULL,
  event_id TEXT NOT NULL,
  event_type TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  response_status INTEGER,
  last_error TEXT,
  last_attempt_at TEXT,
  next_attempt_at TEXT,
  created_at TEXT NOT NULL,
  UNIQUE (webhook_id, event_id)
);
CREATE INDEX webhook_deliveries_newest ON webhook_deliveries (tenant_id, webhook_id, created_at, id);
-- The sweep's view: deliveries still waiting, by when they are due.
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';

CREATE TRIGGER webhooks_fence_insert BEFORE INSERT ON webhooks
  WHEN EXISTS (SELECT 1 FROM tenant_fences WHERE tenant_id = NEW.tenant_id)
  BEGIN SELECT RAISE(ABORT, 'tenant_moving'); END;
CREATE TRIGGER webhooks_fence_update BEFORE UPDATE ON webhooks
  WHEN EXISTS (SELECT 1 FROM tenant_fences WHERE tenant_id = OLD.tenant_id)
  BEGIN SELECT RAISE(ABORT, 'tenant_moving'); END;
CREATE TRIGGER webhooks_fence_delete BEFORE DELETE ON webhooks
  WHEN EXISTS (SELECT 1 FROM tenant_fences WHERE tenant_id = OLD.tenant_id AND state = 'MOVING')
  BEGIN SELECT RAISE(ABORT, 'tenant_moving'); END;

CREATE TRIGGER webhook_deliveries_fence_insert BEFORE INSERT ON webhook_deliveries
  WHEN EXISTS (SELECT 1 FROM tenant_fences WHERE tenant_id = NEW.tenant_id)
  BEGIN SELECT RAISE(ABORT, 'tenant_moving'); END;
CREATE TRIGGER webhook_deliveries_fence_update BEFORE UPDATE ON webhook_deliveries
  WHEN EXISTS (SELECT 1 FROM tenant_fences WHERE tenant_id = OLD.tenant_id)
  BEGIN SELECT RAISE(ABORT, 'tenant_moving'); END;
CREATE TRIGGER webhook_deliveries_fence_delete BEFORE DELETE ON webhook_deliveries
  WHEN EXISTS (SELECT 1 FROM tenant_fences WHERE tenant_id = OLD.tenant_id AND state = 'MOVING')
  BEGIN SELECT RAISE(ABORT, 'tenant_moving'); END;
