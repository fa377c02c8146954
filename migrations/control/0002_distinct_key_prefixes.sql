-- Key prefixes tell a tenant's keys apart (docs/keys.md). Keys issued in the "sk2_" format start
-- with their issue time, so keys issued within hours of each other were recorded with the same
-- prefix: a prefix another key of the tenant shares tells nothing, and is dropped. Such a key records
-- a start of its own, as long as it takes to be distinct, the next time it is used (the plain key
-- exists nowhere else: src/platform/http/auth.ts). Every other key keeps its prefix.
-- The shared prefixes are found before any is dropped (a subquery correlated with the updated rows
-- would see the first ones dropped and keep the last).
UPDATE api_keys SET prefix = NULL
WHERE (tenant_id, prefix) IN (
  SELECT tenant_id, prefix FROM api_keys WHERE prefix IS NOT NULL GROUP BY tenant_id, prefix HAVING count(*) > 1
);

-- From here on no two keys of a tenant share a prefix (keys without one never clash).
CREATE UNIQUE INDEX api_keys_tenant_prefix ON api_keys (tenant_id, prefix);
