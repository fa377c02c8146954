// npm run tenant:delete -- --tenant <tenantId> [--persist-to DIR] [--remote]
//   Deletes a tenant for good: its keys and directory entry (it answers 401 within 10 s), its
//   archived change history in the bucket, and its rows on its shard. A deletion that stopped
//   part-way finishes when run again. Prints a report (shard, keys, objects and rows deleted).
// Runs the Worker's own code (src/tenants/delete.ts): locally inside the server that holds the local
// state (`npm start`, on whatever port: scripts/lib/local-server.mjs), or, when none does, against
// the local databases and bucket through wrangler's platform proxy; with --remote, the deployed ones.
import { commandLine, fail } from "./lib/command-line.mjs";
import { onLocalState, operatorRequest } from "./lib/local-server.mjs";
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

/** Deletes with the Worker's code run here, against wrangler.toml's bindings (nothing else has them open). */
function deleteHere() {
  return withWorkerCode(
    { entry: "src/tenants/delete.ts", persistTo: options["persist-to"], remote: options.remote },
    async ({ deleteTenant, TenantDeleteRefused }, env) => {
      try {
        return await deleteTenant(env, options.tenant);
      } catch (error) {
        throw error instanceof TenantDeleteRefused ? new Refused(error.message) : error;
      }
    },
  );
}

/** Deletes inside the server that holds the local state. */
async function deleteThrough(server) {
  try {
    return await operatorRequest(server, "POST", `/__local/tenants/${encodeURIComponent(options.tenant)}/delete`);
  } catch (error) {
    throw error.status === 404 || error.status === 400 ? new Refused(error.message) : error;
  }
}

/** A deletion the Worker's code refused (the tenant is moving, or not found): said, exit 1. */
class Refused extends Error {}

try {
  const report = options.remote
    ? await deleteHere()
    : await onLocalState(options["persist-to"], "npm run tenant:delete", { viaServer: deleteThrough, alone: deleteHere });
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
} catch (error) {
  if (!(error instanceof Refused)) throw error;
  console.error(error.message);
  process.exitCode = 1;
}
