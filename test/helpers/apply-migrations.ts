import { applyD1Migrations, env } from "cloudflare:test";
import { shardNames } from "../../src/platform/core/shards";

await applyD1Migrations(env.CONTROL, env.TEST_CONTROL_MIGRATIONS);
for (const shard of shardNames(env)) await applyD1Migrations(env[shard], env.TEST_TENANT_MIGRATIONS);
