import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { unstable_readConfig } from "wrangler";
import { icuMessages } from "./console/i18n-messages.ts";
import { startWebhookReceiver } from "./test/support/webhook-receiver.mjs";

// The tests set their secrets as bindings below; wrangler would still announce, once per test file,
// that it read .dev.vars (which `npm start` writes). Its warnings and errors still show.
process.env.WRANGLER_LOG ??= "warn";

/** The Worker exactly as `wrangler deploy` would upload it, so tests can check what ships. */
function productionBundle(): string {
  const outdir = mkdtempSync(join(tmpdir(), "deploy-dry-run-"));
  try {
    const run = spawnSync(join("node_modules", ".bin", "wrangler"), ["deploy", "--dry-run", "--outdir", outdir], {
      encoding: "utf8",
      env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
    });
    // What wrangler said goes with the failure: the run stops at its config, with nothing else to go on.
    if (run.status !== 0)
      throw new Error(`wrangler deploy --dry-run exited ${run.status ?? run.signal}:\n${`${run.stdout}\n${run.stderr}`.trim().slice(-4000)}`);
    return readFileSync(join(outdir, "index.js"), "utf8");
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

/**
 * Vitest evaluates this file again for each project that extends it (three times a run): what costs
 * seconds (the dry-run bundle, about 5 s of CPU) or holds a port (the receiver) is made once per process.
 */
function oncePerProcess<T>(name: string, make: () => T): T {
  const shared = globalThis as { vitestConfigMade?: Map<string, unknown> };
  shared.vitestConfigMade ??= new Map();
  const made = shared.vitestConfigMade;
  if (!made.has(name)) made.set(name, make());
  return made.get(name) as T;
}

/**
 * Vitest talks to each workerd over a WebSocket that miniflare opens with ws's defaults, which offer
 * permessage-deflate: every message (the modules sent, transformed with source maps inlined, 29 MB for
 * 228 tests; every result back) was deflated on one side and inflated on the other, on loopback, for
 * nothing. The runner's socket (the one request naming MF-Vitest-Worker-Data) now offers no extension,
 * so neither side compresses; ws takes its request function from node:http at each connection.
 */
function runnerSocketsUncompressed() {
  const http = createRequire(import.meta.url)("node:http") as { request: (...args: unknown[]) => unknown };
  const request = http.request;
  http.request = function (this: unknown, ...args: unknown[]) {
    const headers = (args[0] as { headers?: Record<string, unknown> } | undefined)?.headers;
    if (headers && Object.keys(headers).some((name) => name.toLowerCase() === "mf-vitest-worker-data")) delete headers["Sec-WebSocket-Extensions"];
    return request.apply(this, args);
  };
}

/** Worker test files that need a runtime of their own (the project worker-isolated, below). */
const wholeDatabaseJobs = ["test/platform/housekeeping.test.ts"];

/**
 * The queue consumers of wrangler.toml, each batch sent as soon as a message is in it: tests wait for
 * deliveries and their retries, and a second per hop (max_batch_timeout) is time lost (8 attempts: 8 s).
 */
function queueConsumersWithoutBatchWait() {
  const { consumers = [] } = unstable_readConfig({ config: "./wrangler.toml" }).queues;
  return Object.fromEntries(
    consumers.map((consumer) => [
      consumer.queue,
      {
        maxBatchSize: consumer.max_batch_size,
        maxBatchTimeout: 0,
        maxRetries: consumer.max_retries,
        deadLetterQueue: consumer.dead_letter_queue,
        retryDelay: consumer.retry_delay,
      },
    ]),
  );
}

export default defineConfig(async () => {
  oncePerProcess("uncompressed runner sockets", runnerSocketsUncompressed);
  const controlMigrations = await readD1Migrations("./migrations/control");
  const tenantMigrations = await readD1Migrations("./migrations/tenant");
  // A real HTTP receiver in this Node process, for the Worker's webhook deliveries to reach.
  const receiver = await oncePerProcess("webhook receiver", startWebhookReceiver);
  return {
    plugins: [
      cloudflareTest({
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          bindings: {
            TEST_CONTROL_MIGRATIONS: controlMigrations,
            TEST_TENANT_MIGRATIONS: tenantMigrations,
            // Pins every test tenant to one shard (TEST_SHARD=SHARD_2 npm test); unset, tenants alternate between shards.
            TEST_SHARD: process.env.TEST_SHARD ?? "",
            // Local D1 does not enforce the platform's per-statement limits; this makes the Worker check them.
            D1_LIMITS_GUARD: "on",
            PAGINATION_SECRET: "test-pagination-secret",
            KEY_SIGNING_SECRET: "test-key-signing-secret",
            // Webhook receivers in tests run on 127.0.0.1; retries follow at once instead of over a day.
            WEBHOOKS_ALLOW_LOCAL: "on",
            WEBHOOK_RETRY_DELAYS: "0,0,0,0,0,0,0",
            // Moves rest a quarter of their work's time instead of 1.5×: the move tests are about what a move
            // keeps and loses, not its pace (the moves bench measures the shipped one); 2× faster here.
            MOVE_REST_PER_WORK: "0.25",
            // A statement halves the next chunk only past a second (60 ms as shipped): on a machine the tests
            // keep busy, every chunk would shrink to the fewest rows and each move do many times the statements.
            // Tests that show a loaded database by a pace clock still meet the shipped guard (test/helpers/moves.ts).
            MOVE_CHUNK_MS: "1000",
            TEST_RECEIVER_URL: receiver.url,
            CORS_ORIGINS: "https://admin.example.test, http://127.0.0.1:5173",
            PRODUCTION_BUNDLE: oncePerProcess("production bundle", productionBundle),
            // The [[ratelimits]] of wrangler.toml as deployed, so a test can hold them to the Worker's assumptions.
            WRANGLER_RATELIMITS: JSON.stringify(unstable_readConfig({ config: "./wrangler.toml" }).ratelimits),
          },
          // Tiny budgets a test swaps in for the configured ones (tests run hundreds of requests per key).
          queueConsumers: queueConsumersWithoutBatchWait(),
          ratelimits: {
            TINY_RATE_LIMIT_READ: { namespace_id: "9901", simple: { limit: 3, period: 60 } },
            TINY_RATE_LIMIT_WRITE: { namespace_id: "9902", simple: { limit: 3, period: 60 } },
            TINY_RATE_LIMIT_EVALUATE: { namespace_id: "9903", simple: { limit: 3, period: 60 } },
            TINY_RATE_LIMIT_AUTH_FAILURES: { namespace_id: "9904", simple: { limit: 3, period: 60 } },
          },
        },
      }),
    ],
    test: {
      // Two runtimes even on two cores: a file spends much of its time waiting on workerd and D1, so the
      // second keeps the machine busy. Measured on 30 Worker files (2 cores, load about 3): 1 worker 68 s,
      // 2 workers 52 s, 3 workers 97 s (each worker is a workerd of its own).
      maxWorkers: Math.max(2, availableParallelism() - 1),
      // Every request writes its one JSON log line; tests that read them spy on console.log.
      onConsoleLog: (log: string) => process.env.SHOW_LOGS === "1" || !log.startsWith('{"requestId"'),
      testTimeout: 60_000,
      hookTimeout: 60_000,
      projects: [
        // The Worker suite, inside workerd (the plugin above) with real D1 and Durable Objects.
        {
          extends: true,
          test: {
            name: "worker",
            // One runtime (workerd, its databases and objects) per worker, reused file after file, instead of
            // one started and migrated for each file: tests make their own tenants and ids (docs/tests.md).
            isolate: false,
            setupFiles: ["./test/helpers/apply-migrations.ts"],
            include: ["test/**/*.test.ts"],
            exclude: ["test/console/**", ...wholeDatabaseJobs],
          },
        },
        // Files that run a job over every tenant of every shard, as deployed (the hourly cron): what other
        // files leave (a switched move's fenced old copy, thousands of tenants) would refuse or slow it, so
        // each gets a runtime of its own.
        {
          extends: true,
          test: {
            name: "worker-isolated",
            isolate: true,
            // After the others: a runtime the other files share is kept for the next only if that file is theirs too.
            sequence: { groupOrder: 1 },
            setupFiles: ["./test/helpers/apply-migrations.ts"],
            include: wholeDatabaseJobs,
          },
        },
        // The console's pure modules (words, names, grouping): plain Node, no Worker, no browser.
        {
          // The console's words in English, read as main.tsx reads the first language.
          test: { name: "console", include: ["test/console/**/*.test.ts"], environment: "node", setupFiles: ["./test/console/english.ts"] },
          // The catalogs as the console's build compiles them (`virtual:messages/<language>`).
          plugins: [icuMessages(new URL("./console/messages", import.meta.url).pathname)],
          resolve: {
            alias: {
              "@campaign-policy/common": new URL("./src/common", import.meta.url).pathname,
              "@campaign-policy/client": new URL("./client/src/index.ts", import.meta.url).pathname,
            },
          },
        },
      ],
    },
  };
});
