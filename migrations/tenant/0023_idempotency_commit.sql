-- An Idempotency-Key's claim names the request that made it, and that request's write marks it in its
-- own batch: every write that changes something records a change set naming its request, and this
-- trigger writes the set's id on the claim. A request cut off after its commit but before it stored its
-- answer (a Worker stopped mid-request) then leaves a claim that is never run again: a replay answers
-- 409 idempotency_answer_lost with the change set, instead of doing the write a second time after 60 s.
ALTER TABLE idempotency_keys ADD COLUMN request_id TEXT;
ALTER TABLE idempotency_keys ADD COLUMN committed_set TEXT;
CREATE INDEX idempotency_keys_running ON idempotency_keys (tenant_id, request_id) WHERE state = 'PENDING';
CREATE TRIGGER change_sets_commit_claim AFTER INSERT ON change_sets
  WHEN NEW.request_id IS NOT NULL
  BEGIN
    UPDATE idempotency_keys SET committed_set = NEW.id
    WHERE state = 'PENDING' AND tenant_id = NEW.tenant_id AND request_id = NEW.request_id AND committed_set IS NULL;
  END;
