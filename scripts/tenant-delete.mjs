// npm run tenant:delete -- --tenant <tenantId> [--persist-to DIR] [--remote]
//   Deletes a tenant for good: its keys and directory entry (it answers 401 within 10 s), its
//   archived change history in the bucket, and its rows on its shard. A deletion that stopped
//   part-way finishes when run again. Prints a report (shard, keys, objects and rows deleted).
// Runs the Worker's own code (src/tenants/delete.ts) against the bindings of wrangler.toml: the local
// databases and bucket `npm start` serves, or with --remote the deployed ones.
import { commandLine, fail } from "./lib/command-line.mjs";
import { withWorkerCode } from "./lib/worker-code.mjs";

const usage = "usage: npm run tenant:delete -- --tenant <tenantId> [--persist-to DIR] [--remote]";

const options = commandLine(
  {
    tenant: { type: "string" },
    "persist-to": { type: "string" },
    remote: { type: "boolean", default: false },
  },
  usage,
);
if (!options.tenant) fail("--tenant is required.", usage);

await withWorkerCode(
  { entry: "src/tenants/delete.ts", persistTo: options["persist-to"], remote: options.remote },
  async ({ deleteTenant, TenantDeleteRefused }, env) => {
    try {
      process.stdout.write(`${JSON.stringify(await deleteTenant(env, options.tenant), null, 2)}\n`);
    } catch (error) {
      if (error instanceof TenantDeleteRefused) {
        console.error(error.message);
        process.exitCode = 1;
      } else throw error;
    }
  },
);
