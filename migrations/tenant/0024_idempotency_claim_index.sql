-- The claim's mark (0023) must find the claim by its request, not walk the tenant's keys. Without the
-- planner's statistics (D1 keeps none unless ANALYZE runs) SQLite preferred the primary key's tenant
-- prefix over the partial index, so every write scanned all the tenant's keys of the last 48 h: a
-- write cost more with each key stored (a median 26 → 36 ms after 16,000 rule writes). The index now
-- holds the request alone (a request id is unique), and the mark names the tenant with a unary `+`,
-- which keeps the primary key out of the plan (a trigger may not say INDEXED BY).
DROP TRIGGER change_sets_commit_claim;
DROP INDEX idempotency_keys_running;
CREATE INDEX idempotency_keys_running ON idempotency_keys (request_id) WHERE state = 'PENDING';
CREATE TRIGGER change_sets_commit_claim AFTER INSERT ON change_sets
  WHEN NEW.request_id IS NOT NULL
  BEGIN
    UPDATE idempotency_keys SET committed_set = NEW.id
    WHERE state = 'PENDING' AND request_id = NEW.request_id AND +tenant_id = NEW.tenant_id AND committed_set IS NULL;
  END;
