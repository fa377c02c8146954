// npm run migrate: applies the local D1 migrations of every database of wrangler.toml
// (migrations/control to CONTROL, migrations/tenant to every SHARD_…). `--persist-to DIR` for another state.
// Never beside a server over the same state (`npm start` migrates when it starts): it says so and stops.
import { commandLine } from "./lib/command-line.mjs";
import { claimState, StateHeld } from "./lib/local-server.mjs";
import { applyMigrations } from "./lib/wrangler.mjs";

const values = commandLine({ "persist-to": { type: "string" } }, "usage: npm run migrate [-- --persist-to DIR]");
let claim;
try {
  claim = await claimState(values["persist-to"], { holder: "npm run migrate" });
} catch (error) {
  if (!(error instanceof StateHeld)) throw error;
  console.error(`${error.message}: stop it first (\`npm start\` applies new migrations itself when it starts).`);
  process.exit(1);
}
try {
  await applyMigrations({ persistTo: values["persist-to"] }, { echo: true });
} finally {
  claim.release();
}
