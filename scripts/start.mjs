// npm start: local D1 migrations, docs assets, then `wrangler dev` in the foreground, then the demo's
// keys and data through it. Works offline with no Cloudflare account: everything runs in local
// workerd with local D1. One server per local state: it records where it listens beside the state
// (scripts/lib/local-server.mjs), so operator commands find it on any port and go through it, and a
// second `npm start` over the same state says where the first one serves and exits.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { buildConsole } from "./build-console.mjs";
import { commandLine } from "./lib/command-line.mjs";
import { DEMO_KEYS, DEMO_TENANT, exampleVariables, exportLines, httpCaller, seedDemo } from "./lib/demo.mjs";
import { localServerArgs } from "./lib/dev-server.mjs";
import { serverKeys } from "./lib/keys.mjs";
import { startLocalCrons } from "./lib/local-crons.mjs";
import { claimState, newOperatorToken, StateHeld } from "./lib/local-server.mjs";
import { pipeFiltered } from "./lib/wrangler-output.mjs";
import { LOCAL_SECRETS, localSecret } from "./lib/local-secrets.mjs";
import { applyMigrations, repoRoot, spawnWrangler } from "./lib/wrangler.mjs";

const usage = "usage: [PORT=8787] npm start [-- --persist-to DIR]   (DIR: another local state than .wrangler/state)";
const options = commandLine({ "persist-to": { type: "string" } }, usage);
const persistTo = options["persist-to"];
const HOST = "127.0.0.1";
const PORT = Number(process.env.PORT ?? 8787);
const READY_TIMEOUT_MS = 120_000;
const baseUrl = `http://${HOST}:${PORT}`;

if (!Number.isInteger(PORT) || PORT < 1 || PORT > 65535) {
  console.error(`PORT must be a port number, got ${process.env.PORT}`);
  process.exit(2);
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
/** The `wrangler dev` this command runs in the foreground, once started. */
let child;

/** The reference viewer's assets and the list of guides the /docs page shows (docs/*.md may have changed since install). */
async function prepareDocs() {
  await new Promise((resolve) => {
    spawn(process.execPath, [join(repoRoot, "scripts", "prepare-docs.mjs")], { stdio: "inherit" }).on("close", resolve);
  });
}

async function waitUntilReady(child) {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) return false;
    try {
      const response = await fetch(`${baseUrl}/v1/openapi.json`, { signal: AbortSignal.timeout(5_000) });
      await response.arrayBuffer();
      if (response.ok) return true;
    } catch {
      // not listening yet
    }
    await sleep(300);
  }
  return false;
}

/** Progress lines: rewritten in place on a terminal; elsewhere (a log) only each database's start and end. */
function progressPrinter(out = process.stderr) {
  return (line, { final }) => {
    if (out.isTTY) out.write(`\r\x1b[2K  ${line}${final ? "\n" : ""}`);
    else if (final || line.endsWith("to apply…")) out.write(`  ${line}\n`);
  };
}

function banner(operator, account, operations, skipped, crons) {
  const variables = exportLines(exampleVariables({ baseUrl, operatorKey: operator.key, accountKey: account.key, operations }));
  const lines = [
    "",
    "────────────────────────────────────────────────────────────────────────",
    `API on ${baseUrl}   reference: ${baseUrl}/docs   OpenAPI: ${baseUrl}/v1/openapi.json`,
    `Console: ${baseUrl}/console (sign in with a key below)`,
    `Tenant "${DEMO_TENANT}" (on ${operator.shard}) keys (new on every start; shown once):`,
    `  OPERATOR "${DEMO_KEYS.operator.name}"          ${operator.key}`,
    `  ACCOUNT "${DEMO_KEYS.account.name}"  ${account.key}`,
    "",
    "Paste these lines into another shell: every example of README.md and docs/ then works as written.",
    "",
    ...variables,
    "",
    "Try:",
    `  curl -sS "$API/v1/operations?status=ACTIVE" -H 'svc-client: ACCOUNT' -H "svc-api-key: $ACC_KEY"`,
    "",
    `Cron triggers run here on their deployed schedule (UTC): ${crons.map((cron) => `"${cron}"`).join(", ")} (webhook sweep, housekeeping).`,
    'More keys: npm run key -- --tenant <tenantId> --role OPERATOR|ACCOUNT [--user <userId>] [--name "…"] (through this server, on any port)',
  ];
  if (skipped.length) lines.push("", "Demo data not seeded (routes not available yet):", ...skipped.map((s) => `  - ${s}`));
  lines.push("Stop with Ctrl-C.", "────────────────────────────────────────────────────────────────────────", "");
  return lines.join("\n");
}

/** The local Worker's secrets (PAGINATION_SECRET, KEY_SIGNING_SECRET): random ones in .dev.vars, made once and kept. */
function ensureLocalSecrets() {
  for (const name of LOCAL_SECRETS) localSecret(name);
}

/** This process holds the local state from here on, or another one already does: say where it serves, and stop. */
async function claimLocalState() {
  try {
    return await claimState(persistTo, { holder: "npm start", status: "starting" });
  } catch (error) {
    if (!(error instanceof StateHeld)) throw error;
    console.error(
      `${error.message}. One server per local state: use that one (its banner shows its keys; \`npm run key\` issues more through it), or stop it first.`,
    );
    process.exit(1);
  }
}

async function main() {
  const claim = await claimLocalState();
  ensureLocalSecrets();
  await prepareDocs();
  if (await buildConsole({ ifChanged: true })) console.error("Built the console (public/console).");
  console.error("Applying local D1 migrations (the control database and every shard; the first start applies them all, a few seconds) …");
  await applyMigrations({ persistTo }, { progress: progressPrinter() });

  // Local receivers (http://127.0.0.1, http://localhost) may subscribe to webhooks here; a deployment refuses them.
  const operatorToken = newOperatorToken();
  child = spawnWrangler(localServerArgs({ port: PORT, persistTo, operatorToken, vars: { WEBHOOKS_ALLOW_LOCAL: "on" } }), {
    stdio: ["ignore", "pipe", "pipe"],
  });
  claim.update({ serverPid: child.pid });
  pipeFiltered(child.stdout, process.stdout);
  pipeFiltered(child.stderr, process.stderr);
  let stopping = false;
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
    process.on(signal, () => {
      stopping = true;
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    });
  }
  child.on("exit", (code, signal) => {
    // A stop we forwarded is a clean stop; anything else reports wrangler's own failure.
    if (stopping) process.exit(0);
    process.exit(code ?? (signal ? 128 + ({ SIGINT: 2, SIGTERM: 15, SIGHUP: 1 }[signal] ?? 1) : 1));
  });

  if (!(await waitUntilReady(child))) {
    if (!stopping) {
      console.error(`wrangler dev did not answer on ${baseUrl} (is the port taken? set PORT).`);
      child.kill("SIGTERM");
    }
    return;
  }
  claim.update({ status: "serving", url: baseUrl, port: PORT, token: operatorToken });
  console.error(`Issuing keys for tenant "${DEMO_TENANT}" …`);
  const [operator, account] = await serverKeys({ url: baseUrl, token: operatorToken }).issue([
    { tenant: DEMO_TENANT, ...DEMO_KEYS.operator },
    { tenant: DEMO_TENANT, ...DEMO_KEYS.account },
  ]);
  let skipped = [];
  let operations = {};
  try {
    const result = await seedDemo(httpCaller(baseUrl, "OPERATOR", operator.key));
    skipped = result.skipped;
    operations = result.operations ?? {};
  } catch (error) {
    console.error(`Seeding the demo tenant failed: ${error.message}`);
  }
  // wrangler dev fires no cron trigger: run them here on their production schedule, as deployed.
  const schedules = startLocalCrons(baseUrl, {
    onRun: (cron, status) => status !== 200 && console.error(`cron "${cron}" could not run locally (status ${status}).`),
  });
  console.log(banner(operator, account, operations, skipped, schedules.crons));
}

main().catch((error) => {
  console.error(error?.message ?? error);
  // The server goes with it: a server left running would hold the state with no one to stop it.
  if (child?.exitCode === null && child?.signalCode === null) child.kill("SIGTERM");
  process.exit(1);
});
