// npm run tenant:move -- --tenant <tenantId> --to SHARD_… [--keep-source-minutes N]
//   Moves a tenant to another shard while it keeps serving: starts the move in the running server
//   (POST /v1/tenant/moves), prints its progress, and exits 0 once it has switched (1 if it failed or was
//   aborted: the tenant is then whole on its old shard). Writes are refused only at the switch (≤ 2 s).
// npm run tenant:move -- --tenant <tenantId> --abort | --reverse | --status [--move mov_…]
//   Aborts the latest move (before its switch), moves the tenant back (while the old copy is kept), or
//   shows where the move stands.
// The move runs inside the Worker (src/tenants/mover.ts), never beside it against its files: --url, else
// the local server that holds the local state (`npm start` on whatever port: it records where it listens,
// scripts/lib/local-server.mjs), else, when none does, a private one started over that state for the
// command (never a second one beside a running server); --remote needs --url and a key of the deployed service.
// The key: --key or SVC_API_KEY (an OPERATOR key of the tenant); locally, without one, the command
// issues itself a key named "tenant:move" for an hour through that server, and revokes it when done.
import { commandLine, fail } from "./lib/command-line.mjs";
import { startDevServer } from "./lib/dev-server.mjs";
import { requestJson } from "./lib/http.mjs";
import { databaseKeys, serverKeys } from "./lib/keys.mjs";
import { onLocalState, servingServer } from "./lib/local-server.mjs";
import { isShard } from "./lib/wrangler.mjs";

const usage = [
  "usage: npm run tenant:move -- --tenant <tenantId> --to SHARD_… [--keep-source-minutes N] [--url URL] [--key KEY] [--persist-to DIR] [--remote]",
  "       npm run tenant:move -- --tenant <tenantId> --abort | --reverse | --status [--move mov_…] [--url URL] [--key KEY] [--persist-to DIR] [--remote]",
].join("\n");

const options = commandLine(
  {
    tenant: { type: "string" },
    to: { type: "string" },
    "keep-source-minutes": { type: "string" },
    abort: { type: "boolean", default: false },
    reverse: { type: "boolean", default: false },
    status: { type: "boolean", default: false },
    move: { type: "string" },
    url: { type: "string" },
    key: { type: "string" },
    "persist-to": { type: "string" },
    remote: { type: "boolean", default: false },
  },
  usage,
);
const actions = [options.to !== undefined, options.abort, options.reverse, options.status].filter(Boolean).length;
if (!options.tenant) fail("--tenant is required.", usage);
if (actions !== 1) fail("Say what to do: --to SHARD_… (a move), or one of --abort, --reverse, --status.", usage);
if (options.to !== undefined && !isShard(options.to)) fail("--to must name a shard binding of wrangler.toml (SHARD_…).", usage);
const keepSourceMinutes = options["keep-source-minutes"] === undefined ? undefined : Number(options["keep-source-minutes"]);
if (keepSourceMinutes !== undefined && !(Number.isInteger(keepSourceMinutes) && keepSourceMinutes >= 0))
  fail("--keep-source-minutes must be a whole number ≥ 0.", usage);
if (options.remote && !options.url) fail("--remote needs --url (the deployed service) and an OPERATOR key of the tenant (--key or SVC_API_KEY).", usage);
const moveRef = options.move ?? "latest";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const FINISHED = new Set(["SWITCHED", "DROPPING", "COMPLETED", "REVERSED", "ABORTED", "FAILED"]);

const persistTo = options["persist-to"];

/** The server to ask: --url, the local server that holds the local state, or (none does) a private one over it. */
async function server() {
  if (options.url) return { baseUrl: options.url, stop: async () => {} };
  const running = await servingServer(persistTo);
  if (running) {
    console.error(`Through ${running.holder} on ${running.url}.`);
    return { baseUrl: running.url, stop: async () => {} };
  }
  console.error("No local server holds the local databases: starting one for the move (it stops when the command ends).");
  const started = await startDevServer({ persistTo });
  return { baseUrl: started.baseUrl, stop: started.stop };
}

/** The local keys, through the server that holds the state (read again on each use: a restarted server has a new token). */
const localKeys = (use) =>
  onLocalState(persistTo, "npm run tenant:move", { viaServer: (running) => use(serverKeys(running)), alone: () => use(databaseKeys({ persistTo })) });

/** An OPERATOR key of the tenant: given, or (locally) issued for this command, for an hour, and revoked after. */
async function operatorKey() {
  const given = options.key ?? process.env.SVC_API_KEY;
  if (given) return { key: given, done: async () => {} };
  if (options.remote) fail("--remote needs an OPERATOR key of the tenant: --key or SVC_API_KEY.", usage);
  const request = {
    tenant: options.tenant,
    role: "OPERATOR",
    name: "tenant:move",
    expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    existingOnly: true,
  };
  const [issued] = await localKeys((keys) => keys.issue([request]));
  return {
    key: issued.key,
    done: async () => {
      await localKeys((keys) => keys.revoke(issued.keyId)).catch((error) =>
        console.error(`Could not revoke the command's key ${issued.keyId} (it expires within the hour): ${error.message}`),
      );
    },
  };
}

function api(baseUrl, key) {
  return (method, path, body) => requestJson(`${baseUrl}${path}`, { method, headers: { "svc-client": "OPERATOR", "svc-api-key": key }, body });
}

const count = (n) => Number(n ?? 0).toLocaleString("en-US");

const seconds = (ms) => `${Math.round(ms / 1000)} s`;

/** Where the catch-up stands against its bound: what waits, the rounds, and how fast the tenant writes and the move catches up. */
function catchUpPart({ backlog, rounds, roundsAtMost, elapsedMs, convergeWithinMs, perSecond }) {
  const waiting = `${count(backlog.toApply + backlog.toCheck)} waiting (${count(backlog.toApply)} to apply, ${count(backlog.toCheck)} to check)`;
  const rates = perSecond
    ? `; the tenant writes ${count(perSecond.written)}/s, the move applies ${count(perSecond.applied)}/s and checks ${count(perSecond.checked)}/s`
    : "";
  return `catch-up ${seconds(elapsedMs)} of ${seconds(convergeWithinMs)} at most, round ${rounds} of ${roundsAtMost}, ${waiting}${rates}`;
}

/** One line of where the move stands. */
function progressLine(move) {
  const { progress, fence } = move;
  const parts = [`${move.id} ${move.from} → ${move.to}: ${move.status}`, `${count(progress.rowsCopied)}/${count(progress.rowsEstimated)} rows copied`];
  parts.push(
    `${count(progress.changesApplied)} writes caught up`,
    `${count(progress.rowsVerified)} rows compared`,
    `${count(progress.changesChecked)} rechecked`,
  );
  if (move.catchUp) parts.push(catchUpPart(move.catchUp));
  if (fence.longestMs !== null) parts.push(`writes fenced ${fence.longestMs} ms`);
  return parts.join(", ");
}

/** How long the command waits for a server that stopped answering (a restart: the move resumes in it). */
const SERVER_GONE_MS = 120_000;

/** Follows a move until it ends, one progress line per change (rewritten in place on a terminal). */
async function follow(call, moveId) {
  let last = "";
  let goneSince = null;
  for (;;) {
    let answer;
    try {
      answer = await call("GET", `/v1/tenant/moves/${moveId}`);
      goneSince = null;
    } catch (error) {
      // The server restarts (or is restarted): the move waits in it, and goes on where it stood.
      goneSince ??= Date.now();
      if (Date.now() - goneSince > SERVER_GONE_MS)
        throw new Error(
          `The server has not answered for ${SERVER_GONE_MS / 1000} s (${error.message}); the move goes on once it is back: --status follows it.`,
        );
      if (last !== "gone")
        console.error(`${process.stderr.isTTY ? "\n" : ""}The server does not answer (${error.cause?.code ?? error.message}); waiting for it…`);
      last = "gone";
      await sleep(1_000);
      continue;
    }
    if (answer.status !== 200) throw new Error(`GET /v1/tenant/moves/${moveId} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    const move = answer.body;
    const line = progressLine(move);
    if (line !== last) {
      if (process.stderr.isTTY) process.stderr.write(`\r\x1b[2K${line}`);
      else console.error(line);
      last = line;
    }
    if (FINISHED.has(move.status)) {
      if (process.stderr.isTTY) process.stderr.write("\n");
      return move;
    }
    await sleep(500);
  }
}

/** What the command says at the end, and its exit code. */
function conclude(move, wanted) {
  process.stdout.write(`${JSON.stringify(move, null, 2)}\n`);
  if (wanted.includes(move.status)) {
    if (move.status === "SWITCHED") {
      console.error(
        `${options.tenant} is on ${move.to}; writes were refused for ${move.fence.longestMs} ms at the switch. Its old copy stays on ${move.from} until ${move.keepSourceUntil}: until then \`npm run tenant:move -- --tenant ${options.tenant} --reverse\` moves it back.`,
      );
    }
    if (move.status === "ABORTED") console.error(`${options.tenant}: the move was aborted; the tenant is whole on ${move.from}.`);
    return 0;
  }
  console.error(`${options.tenant}: the move ended ${move.status}${move.error ? ` (${move.error})` : ""}; the tenant is whole on ${move.from}.`);
  return 1;
}

let stopServer = async () => {};
let releaseKey = async () => {};
process.on("SIGINT", () => {
  console.error("\nStopped following: the move goes on in the server. `--status` follows it again, `--abort` stops it.");
  Promise.all([releaseKey(), stopServer()]).finally(() => process.exit(130));
});

try {
  const { baseUrl, stop } = await server();
  stopServer = stop;
  const { key, done } = await operatorKey();
  releaseKey = done;
  const call = api(baseUrl, key);
  let answer;
  let wanted;
  if (options.to !== undefined) {
    answer = await call("POST", "/v1/tenant/moves", { to: options.to, ...(keepSourceMinutes !== undefined && { keepSourceMinutes }) });
    wanted = ["SWITCHED", "DROPPING", "COMPLETED"];
  } else if (options.abort) {
    answer = await call("POST", `/v1/tenant/moves/${moveRef}/abort`);
    wanted = ["ABORTED"];
  } else if (options.reverse) {
    answer = await call("POST", `/v1/tenant/moves/${moveRef}/reverse`);
    wanted = ["SWITCHED", "DROPPING", "COMPLETED"];
  } else {
    answer = await call("GET", `/v1/tenant/moves/${moveRef}`);
    wanted = ["SWITCHED", "DROPPING", "COMPLETED", "REVERSED", "ABORTED"];
  }
  if (answer.status >= 300) {
    console.error(`${answer.body?.detail ?? JSON.stringify(answer.body)} (${answer.status} ${answer.body?.code ?? ""})`);
    process.exitCode = 1;
  } else {
    process.exitCode = conclude(await follow(call, answer.body.id), wanted);
  }
} catch (error) {
  console.error(error.message);
  process.exitCode = 1;
} finally {
  await releaseKey();
  await stopServer();
}
