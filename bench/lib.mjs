// The context every bench suite receives. Suites talk to the Worker over loopback HTTP only.
import { execFileSync } from "node:child_process";
import { mkdtempSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { repoRoot } from "../scripts/lib/wrangler.mjs";

/** @typedef {{ tenantId: string, role: "OPERATOR" | "ACCOUNT", key: string, userId?: string }} Caller */
/** @typedef {{ p50: number, p99: number, mean: number, min: number, max: number, opsPerSec: number, samples: number }} Stats */

const REQUEST_TIMEOUT_MS = 120_000;

function percentile(sorted, fraction) {
  if (!sorted.length) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1));
  return sorted[index];
}

/** The tree of `ref` in a temporary directory, with this checkout's node_modules: an older commit a suite serves side by side. */
export function extractTree(ref) {
  const commit = execFileSync("git", ["rev-parse", "--verify", `${ref}^{commit}`], { cwd: repoRoot, encoding: "utf8" }).trim();
  const dir = mkdtempSync(join(tmpdir(), "bench-baseline-"));
  const archive = execFileSync("git", ["archive", "--format=tar", commit], { cwd: repoRoot, maxBuffer: 1 << 30 });
  execFileSync("tar", ["-x", "-C", dir], { input: archive });
  symlinkSync(join(repoRoot, "node_modules"), join(dir, "node_modules"), "dir");
  return { commit, dir };
}

/** The D1 round trips of an answer, sequential/total, from the bench Worker's header ("" without it). */
export const roundTripsOf = (response) => response.headers.get("x-bench-d1-round-trips") ?? "";

/**
 * ctx.sideBySide over calls that answer a response (`{ ms, headers, … }`), each timed by its `ms`; the
 * result also holds `last`, each call's last response (its round trips, its size).
 */
export async function sideBySideCalls(ctx, calls, options) {
  const last = {};
  const timed = Object.fromEntries(
    Object.entries(calls).map(([name, call]) => [
      name,
      async (round) => {
        const response = await call(round);
        last[name] = response;
        return response.ms;
      },
    ]),
  );
  return { ...(await ctx.sideBySide(timed, options)), last };
}

/** Latency figures (ms) of a list of samples (ms). */
export function summarize(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const total = sorted.reduce((sum, ms) => sum + ms, 0);
  const mean = total / sorted.length;
  return {
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    mean,
    min: sorted[0],
    max: sorted[sorted.length - 1],
    opsPerSec: mean > 0 ? 1000 / mean : Infinity,
    samples: sorted.length,
  };
}

/** Rounds ms figures for tables and JSON: 2 decimals under 10 ms, 1 above. */
export function round(ms) {
  if (!Number.isFinite(ms)) return ms;
  return ms < 10 ? Math.round(ms * 100) / 100 : Math.round(ms * 10) / 10;
}

/** A deterministic PRNG (mulberry32) in [0, 1), so every run seeds the same data. */
export function seededRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Calls of `fn(i)` completed per second over `ms`, with `concurrency` calls in flight. */
export async function throughput(fn, concurrency, ms) {
  let done = 0;
  const started = performance.now();
  const deadline = started + ms;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        await fn(done);
        done++;
      }
    }),
  );
  return (done * 1000) / (performance.now() - started);
}

const PROGRESS_REDRAW_MS = 200;
const PROGRESS_LINE_EVERY_MS = 15_000;

/**
 * Progress of the bench's steps on `stream` (stderr: stdout keeps the tables). On a terminal one
 * line redrawn in place; elsewhere (CI, a log file) a line when a step ends, and one every 15 s of a
 * long step, so a log stays short but never goes silent for minutes.
 */
export function createProgress(stream = process.stderr, { now = () => performance.now() } = {}) {
  const live = Boolean(stream.isTTY);
  let prefix = "";
  let open = false;
  const closeLine = () => {
    if (open) stream.write("\n");
    open = false;
  };
  const log = (line) => {
    closeLine();
    stream.write(`${prefix}${line}\n`);
  };
  /** A step of `total` `unit`s: tick() after each, done(summary) at the end. */
  const step = (label, total, unit) => {
    const started = now();
    let count = 0;
    let drawnAt = -Infinity;
    let printedAt = started;
    const figure = () => `${prefix}${label}: ${count}/${total} ${unit}`;
    return {
      tick(by = 1) {
        count += by;
        const at = now();
        if (live && at - drawnAt >= PROGRESS_REDRAW_MS) {
          stream.write(`\r\x1b[K${figure()}`);
          open = true;
          drawnAt = at;
        } else if (!live && at - printedAt >= PROGRESS_LINE_EVERY_MS) {
          stream.write(`${figure()} …\n`);
          printedAt = at;
        }
      },
      done(summary) {
        const seconds = ((now() - started) / 1000).toFixed(1);
        if (live) stream.write("\r\x1b[K");
        open = false;
        stream.write(`${figure()} in ${seconds} s${summary ? ` (${summary})` : ""}\n`);
      },
    };
  };
  return {
    log,
    step,
    /** Lines from now on start with `[name] `. */
    setPrefix(name) {
      closeLine();
      prefix = name ? `[${name}] ` : "";
    },
  };
}

const p50Of = (stats) => `p50 ${round(stats.p50)} ms`;

export function createContext(baseUrl, progress = createProgress()) {
  /**
   * One HTTP call as `caller` (null: no credentials). `ms` is the wall time until the body is read.
   * @returns {Promise<{ status: number, body: any, ms: number, headers: Headers }>}
   */
  async function request(caller, method, path, body, headers = {}) {
    const init = {
      method,
      headers: { ...(caller && { "svc-client": caller.role, "svc-api-key": caller.key }), ...headers },
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    };
    if (body !== undefined) {
      init.body = typeof body === "string" ? body : JSON.stringify(body);
      init.headers["content-type"] = "application/json";
    }
    const started = performance.now();
    const response = await fetch(new URL(path, baseUrl), init);
    const text = await response.text();
    const ms = performance.now() - started;
    let parsed = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, body: parsed, ms, headers: response.headers };
  }

  /** Like request, but throws unless the status is `expected` (a suite must not time failures). */
  async function expect(caller, method, path, body, expected = [200, 201, 204]) {
    const response = await request(caller, method, path, body);
    const allowed = Array.isArray(expected) ? expected : [expected];
    if (!allowed.includes(response.status)) {
      const detail = typeof response.body === "string" ? response.body : JSON.stringify(response.body);
      throw new Error(`${method} ${path} answered ${response.status}, expected ${allowed.join("/")}: ${detail?.slice(0, 400)}`);
    }
    return response;
  }

  /** A fresh tenant (nothing shared with other suites) and an OPERATOR caller on it. */
  async function newTenant(options = {}) {
    const response = await expect(null, "POST", "/__bench/tenants", options, 201);
    return { tenantId: response.body.tenantId, operator: { tenantId: response.body.tenantId, role: "OPERATOR", key: response.body.operatorKey } };
  }

  /** Another key on the tenant; ACCOUNT keys act for `userId`. @returns {Promise<Caller>} */
  async function newKey(tenantId, role, userId) {
    const response = await expect(null, "POST", "/__bench/keys", { tenantId, role, ...(userId && { userId }) }, 201);
    return { tenantId, role, key: response.body.key, ...(userId && { userId }) };
  }

  /**
   * Times `fn` `iterations` times in a row after `warmup` untimed calls. `fn` may return a number:
   * then that is the sample (ms), e.g. a server-side figure; otherwise the wall time of the call.
   * @returns {Promise<Stats>}
   */
  async function measure(fn, { iterations = 50, warmup = 5, label = `measure ${fn.name || "samples"}` } = {}) {
    const step = progress.step(label, warmup + iterations, "samples");
    for (let i = 0; i < warmup; i++) {
      await fn(i);
      step.tick();
    }
    const samples = [];
    for (let i = 0; i < iterations; i++) {
      const started = performance.now();
      const result = await fn(i);
      samples.push(typeof result === "number" ? result : performance.now() - started);
      step.tick();
    }
    const stats = summarize(samples);
    step.done(p50Of(stats));
    return stats;
  }

  /**
   * Runs the functions in alternating order, round after round, so drift (GC, disk cache, a busy
   * core) hits them alike. The LAST named function is the baseline: each result carries ratioP50
   * and ratioP99 against it, and `ratio` is the first function's ratio. `label` names the step in
   * the progress lines (default: the functions' names). `samples` holds each function's samples in
   * the order they were taken.
   * @returns {Promise<Record<string, Stats & { ratioP50: number, ratioP99: number }> & { ratio: { p50: number, p99: number }, samples: Record<string, number[]> }>}
   */
  async function sideBySide(functions, { rounds = 50, warmup = 5, label } = {}) {
    const names = Object.keys(functions);
    if (names.length < 2) throw new Error("sideBySide needs at least two functions");
    const step = progress.step(label ?? names.join(" vs "), warmup + rounds, "rounds");
    const samples = Object.fromEntries(names.map((name) => [name, []]));
    for (let round = -warmup; round < rounds; round++) {
      const order = round % 2 === 0 ? names : [...names].reverse();
      for (const name of order) {
        const started = performance.now();
        const result = await functions[name](round);
        if (round >= 0) samples[name].push(typeof result === "number" ? result : performance.now() - started);
      }
      step.tick();
    }
    const stats = Object.fromEntries(names.map((name) => [name, summarize(samples[name])]));
    const baseline = stats[names[names.length - 1]];
    for (const name of names) {
      stats[name].ratioP50 = stats[name].p50 / baseline.p50;
      stats[name].ratioP99 = stats[name].p99 / baseline.p99;
    }
    step.done(`p50 ${names.map((name) => `${name} ${round(stats[name].p50)}`).join(", ")} ms`);
    return { ...stats, ratio: { p50: stats[names[0]].ratioP50, p99: stats[names[0]].ratioP99 }, samples };
  }

  /** Runs `fn(i)` for i in [0, count) with at most `concurrency` in flight (seeding only, never timed). */
  async function pool(count, concurrency, fn, { label = `seeding ${count}` } = {}) {
    const step = progress.step(label, count, "calls");
    let next = 0;
    const workers = Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) {
        const index = next++;
        await fn(index);
        step.tick();
      }
    });
    await Promise.all(workers);
    step.done();
  }

  /** throughput() with a progress line: `label` names the step. */
  async function measuredThroughput(fn, concurrency, ms, { label = `throughput, ${concurrency} in flight` } = {}) {
    const step = progress.step(label, Math.round(ms / 1000), "s");
    const timer = setInterval(() => step.tick(), 1000);
    try {
      const perSecond = await throughput(fn, concurrency, ms);
      step.done(`${Math.round(perSecond)} calls/s`);
      return perSecond;
    } finally {
      clearInterval(timer);
    }
  }

  return {
    baseUrl,
    request,
    expect,
    newTenant,
    newKey,
    measure,
    sideBySide,
    pool,
    throughput: measuredThroughput,
    log: progress.log,
    random: seededRandom,
    round,
    summarize,
  };
}
