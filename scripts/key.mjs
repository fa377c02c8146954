// npm run key -- --tenant <tenantId> --role OPERATOR|ACCOUNT [--user <userId>] [--name <text>] [--locale <tag>] [--shard SHARD_…] [--remote]
//   Issues a key (a new tenant is placed on --shard, else on the shard with the fewest tenants): prints the plain key alone on the last line of stdout (everything else goes to stderr).
//   Keys are signed (docs/keys.md) with .dev.vars's KEY_SIGNING_SECRET, or with --remote the deployed one, given as the KEY_SIGNING_SECRET environment variable.
// npm run key -- --list --tenant <tenantId> [--json] [--remote]
//   Lists the tenant's keys (never the keys themselves): a table, or one JSON array with --json.
// npm run key -- --revoke <keyId> [--remote]
//   Revokes a key by its id; running Worker instances stop accepting it within 10 s.
// Locally, while a server (`npm start`, on whatever port) holds the databases, the command goes through
// it (scripts/lib/local-server.mjs) and never writes them beside it; with none, it writes them itself.
import { commandLine, fail } from "./lib/command-line.mjs";
import { databaseKeys, serverKeys } from "./lib/keys.mjs";
import { onLocalState } from "./lib/local-server.mjs";

const usage = [
  "usage: npm run key -- --tenant <tenantId> --role OPERATOR|ACCOUNT [--user <userId>] [--name <text>] [--locale <tag>] [--shard SHARD_…] [--remote]",
  "       npm run key -- --list --tenant <tenantId> [--json] [--remote]",
  "       npm run key -- --revoke <keyId> [--remote]",
].join("\n");

const options = commandLine(
  {
    tenant: { type: "string" },
    role: { type: "string" },
    user: { type: "string" },
    name: { type: "string" },
    locale: { type: "string" },
    shard: { type: "string" },
    list: { type: "boolean", default: false },
    json: { type: "boolean", default: false },
    revoke: { type: "string" },
    remote: { type: "boolean", default: false },
    "persist-to": { type: "string" },
  },
  usage,
);
const modes = [options.list, options.revoke !== undefined].filter(Boolean).length;
if (modes > 1) fail("--list and --revoke do not go together.", usage);

const target = { remote: options.remote, persistTo: options["persist-to"] };

function printTable(keys) {
  const columns = ["id", "role", "userId", "name", "prefix", "createdAt", "expiresAt", "revokedAt"];
  const cells = keys.map((key) => columns.map((column) => String(key[column] ?? "-")));
  const widths = columns.map((column, i) => Math.max(column.length, ...cells.map((row) => row[i].length)));
  const line = (values) =>
    values
      .map((value, i) => value.padEnd(widths[i]))
      .join("  ")
      .trimEnd();
  process.stdout.write(`${[line(columns), ...cells.map(line)].join("\n")}\n`);
}

async function issue(keys) {
  const role = options.role?.toUpperCase();
  const [issued] = await keys.issue([{ tenant: options.tenant, role, user: options.user, name: options.name, locale: options.locale, shard: options.shard }]);
  console.error(
    `${issued.tenantCreated ? "Created tenant" : "Tenant"} ${options.tenant} (on ${issued.shard}, default locale ${issued.tenantDefaultLocale}); ` +
      `issued ${issued.keyId}, an ${role} key${options.user ? ` for user ${options.user}` : ""}${options.name ? ` named "${options.name.trim()}"` : ""}, ${keys.where}. ` +
      "It is shown once: store it now.",
  );
  if (!issued.tenantCreated && options.shard && options.shard !== issued.shard) {
    console.error(`Note: the tenant already existed; it stays on ${issued.shard} (move it with npm run tenant:move).`);
  }
  if (!issued.tenantCreated && options.locale && options.locale !== issued.tenantDefaultLocale) {
    console.error(`Note: the tenant already existed; its default locale stays ${issued.tenantDefaultLocale}.`);
  }
  process.stdout.write(`${issued.key}\n`);
}

async function list(keys) {
  const listed = await keys.list(options.tenant);
  if (options.json) process.stdout.write(`${JSON.stringify(listed, null, 2)}\n`);
  else if (listed.length) printTable(listed);
  else console.error(`Tenant ${options.tenant} has no keys ${keys.where}.`);
}

async function revoke(keys) {
  const { key, alreadyRevoked } = await keys.revoke(options.revoke);
  console.error(
    alreadyRevoked
      ? `${key.id} was already revoked at ${key.revokedAt}; nothing changed.`
      : `Revoked ${key.id} (${key.role}${key.userId ? ` for ${key.userId}` : ""}) ${keys.where}: running instances refuse it within 10 s.`,
  );
  process.stdout.write(`${JSON.stringify(key)}\n`);
}

const run = (keys) => (options.list ? list(keys) : options.revoke !== undefined ? revoke(keys) : issue(keys));

try {
  if (options.remote) await run(databaseKeys(target));
  else await onLocalState(target.persistTo, "npm run key", { viaServer: (server) => run(serverKeys(server)), alone: () => run(databaseKeys(target)) });
} catch (error) {
  console.error(`${error.message}\n${usage}`);
  process.exit(1);
}
