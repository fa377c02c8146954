-- Scheduled status changes: when set, the Operation's Durable Object makes the change at that time
-- (activate_at: DRAFT/INACTIVE → ACTIVE; deactivate_at: ACTIVE → INACTIVE) and clears the time.
ALTER TABLE operations ADD COLUMN activate_at TEXT;
ALTER TABLE operations ADD COLUMN deactivate_at TEXT;
