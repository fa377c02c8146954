import { applyD1Migrations, env } from "cloudflare:test";
import { afterAll, vi } from "vitest";
import { shardNames } from "../../src/platform/core/shards";

// Test files share a runtime and its databases (isolate: false in vitest.config.ts) and this file runs
// before each of them: the runtime's first file migrates, the others find it done.
const migrated = Symbol.for("campaign-policy.test.migrated");
const runtime = globalThis as { [migrated]?: boolean };
if (!runtime[migrated]) {
  await applyD1Migrations(env.CONTROL, env.TEST_CONTROL_MIGRATIONS);
  for (const shard of shardNames(env)) await applyD1Migrations(env[shard], env.TEST_TENANT_MIGRATIONS);
  runtime[migrated] = true;
}

// The next file in this runtime starts on the real clock and the real console, whatever this one left.
afterAll(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});
