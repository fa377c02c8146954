// npm run migrate: applies the local D1 migrations of every database of wrangler.toml
// (migrations/control to CONTROL, migrations/tenant to every SHARD_…). `--persist-to DIR` for another state.
import { commandLine } from "./lib/command-line.mjs";
import { applyMigrations } from "./lib/wrangler.mjs";

const values = commandLine({ "persist-to": { type: "string" } }, "usage: npm run migrate [-- --persist-to DIR]");
await applyMigrations({ persistTo: values["persist-to"] }, { echo: true });
