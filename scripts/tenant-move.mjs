// npm run tenant:move -- --tenant <tenantId> --to SHARD_… [--drain-seconds N] [--persist-to DIR] [--remote]
//   Moves a tenant's rows to another shard: writes answer 503 tenant_moving meanwhile, reads keep
//   working; rows are copied in chunks, counted and checksummed on both sides, the directory is
//   switched, and the old rows are deleted once every Worker instance has read the new placement.
//   A move that fails leaves the tenant on its old shard, whole; run it again to start over.
// Runs the Worker's own move code (src/tenants/move.ts) against the D1 bindings of wrangler.toml:
// the local databases `npm start` serves (it may keep serving meanwhile), or with --remote the deployed ones.
import { commandLine, fail } from "./lib/command-line.mjs";
import { withWorkerCode } from "./lib/worker-code.mjs";
import { isShard } from "./lib/wrangler.mjs";

const usage = "usage: npm run tenant:move -- --tenant <tenantId> --to SHARD_… [--drain-seconds N] [--persist-to DIR] [--remote]";

const options = commandLine(
  {
    tenant: { type: "string" },
    to: { type: "string" },
    "drain-seconds": { type: "string" },
    "persist-to": { type: "string" },
    remote: { type: "boolean", default: false },
  },
  usage,
);
if (!options.tenant || !options.to || !isShard(options.to)) fail("--tenant and --to (a shard binding name, SHARD_…) are required.", usage);
const drainSeconds = options["drain-seconds"] === undefined ? undefined : Number(options["drain-seconds"]);
if (drainSeconds !== undefined && !(Number.isFinite(drainSeconds) && drainSeconds >= 0)) fail("--drain-seconds must be a number of seconds ≥ 0.", usage);

await withWorkerCode({ entry: "src/tenants/move.ts", persistTo: options["persist-to"], remote: options.remote }, async ({ moveTenant, MoveRefused }, env) => {
  try {
    const report = await moveTenant(env, options.tenant, options.to, {
      drainMs: drainSeconds === undefined ? undefined : drainSeconds * 1000,
      log: (line) => console.error(line),
    });
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } catch (error) {
    if (error instanceof MoveRefused) {
      console.error(error.message);
      process.exitCode = 1;
    } else throw error;
  }
});
