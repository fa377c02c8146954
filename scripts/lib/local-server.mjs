// One process at a time opens a local state (the local D1 databases, Durable Objects and bucket under
// .wrangler/state, or a test's --persist-to): a second one writing it beside a server makes that
// server answer SQLITE_BUSY. Whoever opens it first records itself in a file beside it
// (local-server.json: the process, and once it serves, its URL and its operator token); a server
// (`npm start`, a test's) keeps the record while it runs, an operator command while it works on the
// state alone. Operator commands find the server through the record and go through its HTTP.
import { randomBytes } from "node:crypto";
import { linkSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { OPERATOR_TOKEN_HEADER } from "../../local/worker/operator-token.mjs";
import { requestJson } from "./http.mjs";
import { repoRoot } from "./wrangler.mjs";

/** The state `wrangler dev` uses when given none. */
export const DEFAULT_STATE = join(repoRoot, ".wrangler", "state");
const RECORD_FILE = "local-server.json";
/** How long a command waits for a server that is starting (its migrations) or another command, before giving up. */
const MAX_WAIT_MS = 10 * 60_000;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export const stateDirectory = (persistTo) => resolve(persistTo ?? DEFAULT_STATE);
export const recordPath = (persistTo) => join(stateDirectory(persistTo), RECORD_FILE);
/** The state as a person would name it: relative to the repository when inside it. */
const shown = (persistTo) => {
  const path = relative(repoRoot, stateDirectory(persistTo));
  return path.startsWith("..") ? stateDirectory(persistTo) : path;
};

export function processAlive(pid) {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === "EPERM";
  }
}

function readRecord(path) {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return null;
  }
}

/** Whether the server at `url` answers its health check (503: it serves, but misses a secret). */
async function answersHealth(url) {
  try {
    const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(10_000) });
    await response.arrayBuffer();
    return response.status === 200 || response.status === 503;
  } catch {
    return false;
  }
}

/**
 * Whether a record still holds its state: one of its processes lives (the recording process, or the
 * server it started), and, once it says it serves, its server answers. A record left by a process
 * that died (or whose pid another process now has) is stale.
 */
export async function holdsState(record) {
  if (!record || ![record.pid, record.serverPid].some(processAlive)) return false;
  return record.status !== "serving" || answersHealth(record.url);
}

/** Who holds a state and what it does there, in a sentence. */
export function describeHolder(record, persistTo) {
  const who = `${record.holder} (pid ${record.serverPid ?? record.pid})`;
  if (record.status === "serving") return `${who} serves ${shown(persistTo)} on ${record.url}`;
  if (record.status === "starting") return `${who} is starting over ${shown(persistTo)}`;
  return `${who} is working on ${shown(persistTo)}`;
}

export class StateHeld extends Error {
  constructor(record, persistTo) {
    super(describeHolder(record, persistTo));
    this.record = record;
  }
}

/** Creates the record file only if there is none, whole or not at all (a link never half-exists). */
function createExclusively(path, record) {
  const temporary = `${path}.${process.pid}.${record.id}`;
  writeFileSync(temporary, JSON.stringify(record), { mode: 0o600 });
  try {
    linkSync(temporary, path);
    return true;
  } catch (error) {
    if (error.code === "EEXIST") return false;
    throw error;
  } finally {
    rmSync(temporary, { force: true });
  }
}

/** Moves a stale record away, unless another process's fresh claim already replaced it (then it is put back). */
function retire(path, stale) {
  const aside = `${path}.stale.${process.pid}`;
  try {
    renameSync(path, aside);
  } catch {
    return;
  }
  const moved = readRecord(aside);
  if (stale && moved?.id !== stale.id) {
    try {
      linkSync(aside, path);
    } catch {
      // a third claimer won meanwhile: its record stays
    }
  }
  rmSync(aside, { force: true });
}

/**
 * Claims the state for this process (`holder`: what it is, e.g. "npm start"; `status`: "starting"
 * or "working"), or throws StateHeld naming the live process that holds it. A stale record is
 * taken over. Returns the claim: `update(fields)` records more (the server's URL once it serves),
 * `release()` gives the state up (also done when the process exits).
 */
export async function claimState(persistTo, { holder, status = "working" }) {
  const path = recordPath(persistTo);
  mkdirSync(dirname(path), { recursive: true });
  for (let attempt = 1; attempt <= 5; attempt++) {
    const record = { holder, pid: process.pid, status, since: new Date().toISOString(), id: randomBytes(8).toString("hex") };
    if (createExclusively(path, record)) return claimOf(path, record);
    const found = readRecord(path);
    if (await holdsState(found)) throw new StateHeld(found, persistTo);
    retire(path, found);
  }
  throw new Error(`Could not claim ${shown(persistTo)}: other processes keep claiming it.`);
}

function claimOf(path, record) {
  let current = record;
  const release = () => {
    process.off("exit", onExit);
    if (readRecord(path)?.id === current.id) rmSync(path, { force: true });
  };
  // A server this process started and left running (it failed, or was killed) still holds the state.
  const onExit = () => !processAlive(current.serverPid) && release();
  process.on("exit", onExit);
  return {
    get record() {
      return current;
    },
    update(fields) {
      current = { ...current, ...fields };
      const temporary = `${path}.${process.pid}.${current.id}`;
      writeFileSync(temporary, JSON.stringify(current), { mode: 0o600 });
      renameSync(temporary, path);
    },
    release,
  };
}

/**
 * The server that holds the state and serves it ({ url, token, holder, pid… }), or null when no live
 * process holds the state. While one is starting (`npm start` applying migrations) or a command works
 * on it alone, waits for it (saying so once through `log`).
 */
export async function servingServer(persistTo, { log = (line) => console.error(line) } = {}) {
  const path = recordPath(persistTo);
  const deadline = Date.now() + MAX_WAIT_MS;
  let said = false;
  for (;;) {
    const found = readRecord(path);
    if (!(await holdsState(found))) return null;
    if (found.status === "serving") return found;
    if (Date.now() > deadline) throw new Error(`${describeHolder(found, persistTo)} and has not finished after ${MAX_WAIT_MS / 60_000} minutes.`);
    if (!said) log(`${describeHolder(found, persistTo)}: waiting for it…`);
    said = true;
    await sleep(500);
  }
}

/**
 * Runs an operator command on a local state without ever opening it beside a server: through the
 * server that serves it (`viaServer(server)`), or, when no process holds it, with the state claimed
 * for the command (`alone()`), so that no server starts over it meanwhile.
 */
export async function onLocalState(persistTo, holder, { viaServer, alone }) {
  for (;;) {
    const server = await servingServer(persistTo);
    if (server) return viaServer(server);
    let claim;
    try {
      claim = await claimState(persistTo, { holder });
    } catch (error) {
      if (error instanceof StateHeld) continue; // a server or command got there first: wait for it
      throw error;
    }
    try {
      return await alone();
    } finally {
      claim.release();
    }
  }
}

/** A fresh token for a server's operator routes. */
export const newOperatorToken = () => randomBytes(24).toString("base64url");

/** Calls an operator route of a local server; answers its JSON, or throws with the problem's detail. */
export async function operatorRequest(server, method, path, body) {
  const answer = await requestJson(`${server.url}${path}`, { method, headers: { [OPERATOR_TOKEN_HEADER]: server.token }, body, timeoutMs: 60_000 });
  const { status, body: parsed, text } = answer;
  if (answer.ok) return parsed;
  const errors = (parsed?.errors ?? []).map((item) => `${item.field ? `${item.field.replace(/^body\.(key\.)?/, "")} ` : ""}${item.message}`);
  const detail = parsed?.detail ?? String(text).slice(0, 300);
  const error = new Error(`${detail}${errors.length ? ` (${errors.join("; ")})` : ""} [${status}${parsed?.code ? ` ${parsed.code}` : ""} from ${server.url}]`);
  error.status = status;
  throw error;
}
