-- The key a change was made with, beside its actor: a key issued with a user acts as `user:<id>`,
-- and a leaked key's changes must still be found by the key (GET /v1/history?actorKeyId=).
ALTER TABLE change_sets ADD COLUMN key_id TEXT;
