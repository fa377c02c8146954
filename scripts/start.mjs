// npm start: local D1 migrations, docs assets, demo keys and data, then `wrangler dev` in the foreground.
// Works offline with no Cloudflare account: everything runs in local workerd with local D1.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { buildConsole } from "./build-console.mjs";
import { DEMO_ACCOUNT_USER, DEMO_TENANT, exampleVariables, exportLines, httpCaller, seedDemo } from "./lib/demo.mjs";
import { issueKeys } from "./lib/keys.mjs";
import { startLocalCrons } from "./lib/local-crons.mjs";
import { pipeFiltered } from "./lib/wrangler-output.mjs";
import { LOCAL_SECRETS, localSecret } from "./lib/local-secrets.mjs";
import { applyMigrations, repoRoot, spawnWrangler } from "./lib/wrangler.mjs";

const HOST = "127.0.0.1";
const PORT = Number(process.env.PORT ?? 8787);
const READY_TIMEOUT_MS = 120_000;
const baseUrl = `http://${HOST}:${PORT}`;

if (!Number.isInteger(PORT) || PORT < 1 || PORT > 65535) {
  console.error(`PORT must be a port number, got ${process.env.PORT}`);
  process.exit(2);
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

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

function banner(operatorKey, accountKey, shard, operations, skipped, crons) {
  const variables = exportLines(exampleVariables({ baseUrl, operatorKey, accountKey, operations }));
  const lines = [
    "",
    "────────────────────────────────────────────────────────────────────────",
    `API on ${baseUrl}   reference: ${baseUrl}/docs   OpenAPI: ${baseUrl}/v1/openapi.json`,
    `Console: ${baseUrl}/console (sign in with a key below)`,
    `Tenant "${DEMO_TENANT}" (on ${shard}) keys (new on every start; shown once):`,
    `  OPERATOR               ${operatorKey}`,
    `  ACCOUNT (${DEMO_ACCOUNT_USER})      ${accountKey}`,
    "",
    "Paste these lines into another shell: every example of README.md and docs/ then works as written.",
    "",
    ...variables,
    "",
    "Try:",
    `  curl -sS "$API/v1/operations?status=ACTIVE" -H 'svc-client: ACCOUNT' -H "svc-api-key: $ACC_KEY"`,
    "",
    `Cron triggers run here on their deployed schedule (UTC): ${crons.map((cron) => `"${cron}"`).join(", ")} (webhook sweep, housekeeping).`,
    "More keys: npm run key -- --tenant <tenantId> --role OPERATOR|ACCOUNT [--user <userId>]",
  ];
  if (skipped.length) lines.push("", "Demo data not seeded (routes not available yet):", ...skipped.map((s) => `  - ${s}`));
  lines.push("Stop with Ctrl-C.", "────────────────────────────────────────────────────────────────────────", "");
  return lines.join("\n");
}

/** The local Worker's secrets (PAGINATION_SECRET, KEY_SIGNING_SECRET): random ones in .dev.vars, made once and kept. */
function ensureLocalSecrets() {
  for (const name of LOCAL_SECRETS) localSecret(name);
}

async function main() {
  ensureLocalSecrets();
  await prepareDocs();
  if (await buildConsole({ ifChanged: true })) console.error("Built the console (public/console).");
  console.error("Applying local D1 migrations (the control database and every shard) …");
  await applyMigrations({});
  console.error(`Issuing keys for tenant "${DEMO_TENANT}" …`);
  const [operator, account] = await issueKeys([
    { tenant: DEMO_TENANT, role: "OPERATOR" },
    { tenant: DEMO_TENANT, role: "ACCOUNT", user: DEMO_ACCOUNT_USER },
  ]);

  // Local receivers (http://127.0.0.1, http://localhost) may subscribe to webhooks here; a deployment refuses them.
  const child = spawnWrangler(["dev", "--ip", HOST, "--port", String(PORT), "--show-interactive-dev-session=false", "--var", "WEBHOOKS_ALLOW_LOCAL:on"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
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
  console.log(banner(operator.key, account.key, operator.shard, operations, skipped, schedules.crons));
}

main().catch((error) => {
  console.error(error?.message ?? error);
  process.exit(1);
});
