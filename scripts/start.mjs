// npm start: local D1 migrations, docs assets, demo keys and data, then `wrangler dev` in the foreground.
// Works offline with no Cloudflare account: everything runs in local workerd with local D1.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildConsole } from "./build-console.mjs";
import { DEMO_ACCOUNT_USER, DEMO_TENANT, seedDemo } from "./lib/demo.mjs";
import { issueKeys } from "./lib/keys.mjs";
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

async function prepareDocs() {
  if (existsSync(join(repoRoot, "public", "docs", "vendor", "swagger-ui-bundle.js"))) return;
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

function caller(role, key) {
  return async (method, path, body) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { "svc-client": role, "svc-api-key": key, ...(body !== undefined && { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    let parsed = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // keep the text
    }
    return { status: response.status, body: parsed };
  };
}

function banner(operatorKey, accountKey, shard, skipped) {
  const op = `-H 'svc-client: OPERATOR' -H 'svc-api-key: ${operatorKey}'`;
  const acc = `-H 'svc-client: ACCOUNT' -H 'svc-api-key: ${accountKey}'`;
  const lines = [
    "",
    "────────────────────────────────────────────────────────────────────────",
    `API on ${baseUrl}   reference: ${baseUrl}/docs   OpenAPI: ${baseUrl}/v1/openapi.json`,
    `Console: ${baseUrl}/console (sign in with a key below)`,
    `Tenant "${DEMO_TENANT}" (on ${shard}) keys (new on every start; shown once):`,
    `  OPERATOR               ${operatorKey}`,
    `  ACCOUNT (${DEMO_ACCOUNT_USER})      ${accountKey}`,
    "",
    "Try:",
    `  curl -s '${baseUrl}/v1/operations?sort=name' ${op}`,
    `  curl -s '${baseUrl}/v1/operations?status=ACTIVE&name=printemps' ${op}`,
    `  curl -s '${baseUrl}/v1/accounts' ${op}`,
    `  curl -s '${baseUrl}/v1/operations' ${acc}`,
    `  curl -s '${baseUrl}/v1/front/operations' ${acc} -H 'locale: fr-FR'`,
    `  curl -s -X POST '${baseUrl}/v1/buying-policies/quotas/evaluate' ${acc} -H 'content-type: application/json' \\`,
    `       -d '{"orders":[{"accountId":"A-100","supplierId":"SUP-1","amount":12000}]}'`,
    "",
    "More keys: npm run key -- --tenant <tenantId> --role OPERATOR|ACCOUNT [--user <userId>]",
  ];
  if (skipped.length) lines.push("", "Demo data not seeded (routes not available yet):", ...skipped.map((s) => `  - ${s}`));
  lines.push("Stop with Ctrl-C.", "────────────────────────────────────────────────────────────────────────", "");
  return lines.join("\n");
}

/** The local Worker's secrets: a random PAGINATION_SECRET in .dev.vars, made once and kept. */
function ensureLocalSecrets() {
  const file = join(repoRoot, ".dev.vars");
  const current = existsSync(file) ? readFileSync(file, "utf8") : "";
  if (/^PAGINATION_SECRET=/m.test(current)) return;
  const line = `PAGINATION_SECRET=${randomBytes(32).toString("base64url")}\n`;
  writeFileSync(file, current && !current.endsWith("\n") ? `${current}\n${line}` : current + line);
  console.error("Wrote a new local PAGINATION_SECRET to .dev.vars.");
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
    stdio: ["ignore", "inherit", "inherit"],
  });
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
  try {
    const result = await seedDemo(caller("OPERATOR", operator.key));
    skipped = result.skipped;
  } catch (error) {
    console.error(`Seeding the demo tenant failed: ${error.message}`);
  }
  console.log(banner(operator.key, account.key, operator.shard, skipped));
}

main().catch((error) => {
  console.error(error?.message ?? error);
  process.exit(1);
});
