import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { KEY_CACHE_TTL_MS, UNKNOWN_KEY_TTL_MS } from "../../src/platform/http/auth";
import { FRESH_KEY_MS, mintSignedKey } from "../../src/platform/core/key-format.mjs";
import { AUTH_FAILURE_BINDING, AUTH_FAILURE_LIMIT_CLASS, RATE_LIMIT_PERIOD_SECONDS } from "../../src/platform/http/rate-limits";
import {
  call,
  callRoute,
  expectProblem,
  expectStatus,
  issueKey,
  issueLegacyKey,
  legacyKeyText,
  newTenant,
  uniqueId,
  type ApiResponse,
  type Caller,
  type CallOptions,
} from "../helpers/client";
import { itInOneWindow } from "../helpers/rate-limit-window";
import { laggingControl } from "../helpers/lagging-control";
import { captureLog } from "../helpers/request-log";
import { routes } from "../helpers/routes";

/*
 * What a request with a key that is not valid costs: a forged or malformed key no D1 query at all,
 * an unknown key of the old format one replica read (none while remembered), and only a signed key
 * issued a moment ago may ask the primary. Costs are read from the request log line.
 */
afterEach(() => vi.restoreAllMocks());

const read = (caller: Caller, options: CallOptions = {}) => call(caller, "GET", "/v1/operations", options);

/** A key of another tenant's caller, with `key` swapped in. */
const withKey = (caller: Caller, key: string): Caller => ({ ...caller, key });

async function signedKeyWithChangedCharacter(at: number): Promise<string> {
  const key = await mintSignedKey(env.KEY_SIGNING_SECRET);
  const swapped = key[at] === "A" ? "B" : "A";
  return key.slice(0, at) + swapped + key.slice(at + 1);
}

function expectUnauthorizedAt(log: ReturnType<typeof captureLog>, response: ApiResponse, roundTrips: number) {
  expectProblem(response, 401, "unauthorized");
  expect(log.lineOf(response)[0]).toMatchObject({ status: 401, d1RoundTrips: roundTrips });
}

describe("a forged or malformed key costs no query", () => {
  const FORGED: [name: string, key: () => Promise<string>][] = [
    ["random characters in the signed format", async () => `sk2_${"x".repeat(62)}`],
    ["a signed key with one character of its random part changed", () => signedKeyWithChangedCharacter(20)],
    ["a signed key with one character of its tag changed", () => signedKeyWithChangedCharacter(60)],
    ["a signed key with its issue time changed (claiming another moment)", () => signedKeyWithChangedCharacter(5)],
    ["a key signed under another secret", () => mintSignedKey("not-the-servers-secret")],
    ["a signed key cut short", async () => (await mintSignedKey(env.KEY_SIGNING_SECRET)).slice(0, -1)],
    ["a signed key with a character added", async () => `${await mintSignedKey(env.KEY_SIGNING_SECRET)}A`],
    [
      "a signed key spelled differently (its last character's unused bits set)",
      async () => {
        const key = await mintSignedKey(env.KEY_SIGNING_SECRET);
        const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        return key.slice(0, -1) + alphabet[alphabet.indexOf(key.at(-1)!) ^ 1];
      },
    ],
    ["neither format", async () => "sk_test_not_a_key"],
    ["an old-format key one character short", async () => legacyKeyText().slice(0, -1)],
    ["not a key at all", async () => "hello"],
  ];

  it.each(FORGED)("%s: 401 with 0 D1 round trips", async (_name, forge) => {
    const op = await newTenant();
    const log = captureLog();
    expectUnauthorizedAt(log, await read(withKey(op, await forge())), 0);
  });

  it("a forged key claiming to be issued this moment never reaches the primary (nor any replica)", async () => {
    const op = await newTenant();
    const { binding, reads } = laggingControl();
    const log = captureLog();
    const forged = await signedKeyWithChangedCharacter(40);
    expectUnauthorizedAt(log, await read(withKey(op, forged), { env: { CONTROL: binding } }), 0);
    expect(reads).toEqual({ primary: 0, replica: 0 });
  });
});

describe("an unknown key of the old format, or signed long ago", () => {
  it("an old-format key: 1 replica read the first time, never the primary; none while remembered", async () => {
    const op = await newTenant();
    const { binding, reads } = laggingControl();
    const log = captureLog();
    const unknown = withKey(op, legacyKeyText());
    expectUnauthorizedAt(log, await read(unknown, { env: { CONTROL: binding } }), 1);
    expect(reads).toEqual({ primary: 0, replica: 1 });
    expectUnauthorizedAt(log, await read(unknown, { env: { CONTROL: binding } }), 0);
    expectUnauthorizedAt(log, await read(unknown), 0);
    expect(reads).toEqual({ primary: 0, replica: 1 });
  });

  it("a signed key issued long ago and unknown: 1 replica read, never the primary", async () => {
    const op = await newTenant();
    const { binding, reads } = laggingControl();
    const log = captureLog();
    const old = await mintSignedKey(env.KEY_SIGNING_SECRET, Date.now() - FRESH_KEY_MS - 60_000);
    expectUnauthorizedAt(log, await read(withKey(op, old), { env: { CONTROL: binding } }), 1);
    expect(reads).toEqual({ primary: 0, replica: 1 });
  });

  it("a signed key issued a moment ago and unknown: the replica, then the primary, once; then remembered", async () => {
    const op = await newTenant();
    const { binding, reads } = laggingControl();
    const log = captureLog();
    const fresh = withKey(op, await mintSignedKey(env.KEY_SIGNING_SECRET));
    expectUnauthorizedAt(log, await read(fresh, { env: { CONTROL: binding } }), 2);
    expect(reads).toEqual({ primary: 1, replica: 1 });
    expectUnauthorizedAt(log, await read(fresh, { env: { CONTROL: binding } }), 0);
  });

  it("is remembered only briefly: a key stored since is found once the memory has lapsed", async () => {
    const op = await newTenant();
    const key = legacyKeyText();
    expectProblem(await read(withKey(op, key)), 401, "unauthorized");
    const stored = await storedAs(op, key);
    expectProblem(await read(stored), 401, "unauthorized"); // still remembered as unknown
    vi.spyOn(Date, "now").mockReturnValue(Date.now() + UNKNOWN_KEY_TTL_MS + 1);
    expectStatus(await read(stored), 200);
  });

  it("is forgotten at once when this instance issues a key", async () => {
    const op = await newTenant();
    const key = legacyKeyText();
    expectProblem(await read(withKey(op, key)), 401, "unauthorized");
    const stored = await storedAs(op, key);
    expectProblem(await read(stored), 401, "unauthorized");
    expectStatus(await callRoute(op, routes.createKey, { body: { role: "OPERATOR" } }), 201);
    expectStatus(await read(stored), 200);
  });
});

/** Stores `key` as an OPERATOR key of the caller's tenant, straight in the database (as another instance would). */
async function storedAs(op: Caller, key: string): Promise<Caller> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key)));
  const hash = Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
  await env.CONTROL.prepare("insert into api_keys (id, tenant_id, role, key_hash, created_at) values (?, ?, 'OPERATOR', ?, ?)")
    .bind(uniqueId("key"), op.tenantId, hash, new Date().toISOString())
    .run();
  return withKey(op, key);
}

describe("what works keeps working", () => {
  it("a key of the old format authenticates, costing one replica read once and none while cached", async () => {
    const op = await newTenant();
    const legacy = await issueLegacyKey(op.tenantId, "OPERATOR");
    const log = captureLog();
    const first = await read(legacy);
    expectStatus(first, 200);
    const again = await read(legacy);
    expectStatus(again, 200);
    expect(log.lineOf(again)[0].d1SequentialRoundTrips).toBeLessThanOrEqual(log.lineOf(first)[0].d1SequentialRoundTrips - 1);
  });

  it("a signed key issued long ago and stored authenticates from the replica", async () => {
    const op = await newTenant();
    const old = await storedAs(op, await mintSignedKey(env.KEY_SIGNING_SECRET, Date.parse("2026-01-01T00:00:00Z")));
    expectStatus(await read(old), 200);
  });

  it("a key of the old format stops within the key cache's lifetime once revoked elsewhere, and at its expiry", async () => {
    const op = await newTenant();
    const revoked = await issueLegacyKey(op.tenantId, "OPERATOR");
    const expiring = await issueLegacyKey(op.tenantId, "OPERATOR");
    expectStatus(await read(revoked), 200);
    expectStatus(await read(expiring), 200);
    const now = Date.now();
    const hashOf = async (key: string) =>
      Array.from(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key))), (b) => b.toString(16).padStart(2, "0")).join("");
    await env.CONTROL.prepare("update api_keys set revoked_at = ? where key_hash = ?")
      .bind(new Date(now).toISOString(), await hashOf(revoked.key))
      .run();
    await env.CONTROL.prepare("update api_keys set expires_at = ? where key_hash = ?")
      .bind(new Date(now + 1_000).toISOString(), await hashOf(expiring.key))
      .run();
    vi.spyOn(Date, "now").mockReturnValue(now + KEY_CACHE_TTL_MS + 1);
    expectProblem(await read(revoked), 401, "unauthorized");
    expectProblem(await read(expiring), 401, "unauthorized");
  });

  it("a key issued through the API works on the very next request, even where the replica has not seen it yet", async () => {
    const op = await newTenant();
    const created = expectStatus(await callRoute(op, routes.createKey, { body: { role: "OPERATOR" } }), 201);
    const { binding, reads } = laggingControl();
    expectStatus(await read(withKey(op, created.key!), { env: { CONTROL: binding } }), 200);
    expect(reads.primary).toBeGreaterThan(0);
  });
});

describe("failed authentications per client address", () => {
  const BUDGET = 3; // TINY_RATE_LIMIT_AUTH_FAILURES (vitest.config.ts)
  const tiny = { [AUTH_FAILURE_BINDING]: env.TINY_RATE_LIMIT_AUTH_FAILURES };
  const from = (address: string, extra: CallOptions = {}): CallOptions => ({
    ...extra,
    headers: { "CF-Connecting-IP": address },
    env: { ...tiny, ...extra.env },
  });
  // A documentation address (RFC 5737) per test: each has a budget of its own.
  let counter = 0;
  const newAddress = () => `192.0.2.${(Date.now() + counter++) % 250}`;

  // Budgets renew on the minute: each test that spends one runs inside one window (inOneWindow).

  it("holds wrangler.toml's budget to the Worker's period", () => {
    const configured = JSON.parse(env.WRANGLER_RATELIMITS) as { name: string; simple: { limit: number; period: number } }[];
    const entry = configured.find((limit) => limit.name === AUTH_FAILURE_BINDING);
    expect(entry).toBeDefined();
    expect(entry!.simple.period).toBe(RATE_LIMIT_PERIOD_SECONDS);
  });

  itInOneWindow(
    `answers 429 rate_limited (limitClass ${AUTH_FAILURE_LIMIT_CLASS}) with Retry-After past the budget, then reads nothing for that address`,
    async () => {
      const op = await newTenant();
      const address = newAddress();
      const log = captureLog();
      for (let i = 0; i < BUDGET; i++) expectProblem(await read(withKey(op, `sk2_${"y".repeat(62)}`), from(address)), 401, "unauthorized");
      const refused = await read(withKey(op, "nonsense"), from(address));
      const problem = expectProblem(refused, 429, "rate_limited");
      const retryAfter = Number(refused.headers.get("retry-after"));
      expect(retryAfter >= 1 && retryAfter <= RATE_LIMIT_PERIOD_SECONDS).toBe(true);
      expect(problem).toMatchObject({ limitClass: AUTH_FAILURE_LIMIT_CLASS, retryAfter });
      // An unknown key that would need a lookup: refused before any query.
      const lookup = await read(withKey(op, legacyKeyText()), from(address));
      expectProblem(lookup, 429, "rate_limited");
      expect(log.lineOf(lookup)[0].d1RoundTrips).toBe(0);
      // Missing credentials count as failures too.
      expectProblem(await call(null, "GET", "/v1/operations", from(address)), 429, "rate_limited");
    },
  );

  itInOneWindow("counts per address, leaves a key already known working, and counts no successful request", async () => {
    const op = await newTenant();
    const colleague = await issueKey(op.tenantId, "OPERATOR");
    const [spent, other] = [newAddress(), newAddress()];
    for (let i = 0; i < BUDGET * 3; i++) expectStatus(await read(op, from(spent)), 200);
    expectStatus(await read(colleague, from(spent)), 200);
    for (let i = 0; i < BUDGET; i++) expectProblem(await read(withKey(op, "nonsense"), from(spent)), 401, "unauthorized");
    expectProblem(await read(withKey(op, "nonsense"), from(spent)), 429, "rate_limited");
    expectStatus(await read(op, from(spent)), 200);
    expectProblem(await read(withKey(op, "nonsense"), from(other)), 401, "unauthorized");
  });
});
