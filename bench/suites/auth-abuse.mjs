// Issue 26: what a flood of bad keys does to a valid caller. A valid OPERATOR lists Operations
// (GET /v1/operations) alone and while 16 requests with random keys are in flight, phase after
// phase, alone and flooded alternating so drift hits both alike. Per phase: the valid caller's
// p50/p99, and for the flood the D1 round trips per rejected request (x-bench-d1-round-trips) and
// the share answered 429 by the budget of failed authentications per address.
//
// Floods: no-op requests (what any load of 16 in flight costs this machine), forged keys of the signed format (refused before any query) and random keys of the old
// format (one replica read each: every key is new, so none is remembered), each from one address
// (the budget engages) and from a new address per request (it never does: the cost it leaves).
import { randomBytes } from "node:crypto";

const QUICK = process.env.BENCH_AUTH_ABUSE_QUICK === "1";
const IN_FLIGHT = 16;
const ROUNDS = QUICK ? 2 : 4;
const SAMPLES_PER_ROUND = QUICK ? 10 : 40;
const OPERATIONS = 30;

const FLOODS = [
  // The floor: the same load of requests that do nothing (no app, no key, no log line). On a small
  // machine the client and the server share the cores, so any 16-in-flight load slows the valid caller.
  { name: "no-op requests (the floor)", path: "/__bench/raw" },
  { name: "forged signed keys, one address", key: () => `sk2_${randomBytes(46).toString("base64url")}`, rotate: false },
  { name: "random old-format keys, one address", key: () => `sk_${randomBytes(32).toString("base64url")}`, rotate: false },
  { name: "forged signed keys, a new address each", key: () => `sk2_${randomBytes(46).toString("base64url")}`, rotate: true },
  { name: "random old-format keys, a new address each", key: () => `sk_${randomBytes(32).toString("base64url")}`, rotate: true },
];

const percentile = (values, fraction) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))] : NaN;
};

function totalRoundTrips(headers) {
  const value = headers.get("x-bench-d1-round-trips");
  if (!value) throw new Error("the answer has no x-bench-d1-round-trips header: is the bench entry serving?");
  return Number(value.split("/")[1]);
}

export default async function authAbuse(ctx) {
  const { operator } = await ctx.newTenant();
  console.error(`[auth-abuse] seeding ${OPERATIONS} Operations …`);
  await ctx.pool(OPERATIONS, 4, (i) =>
    ctx.expect(
      operator,
      "POST",
      "/v1/operations",
      { code: `AB-${i}`, name: { en: `Abuse ${i}` }, type: "PUBLIC", startDate: "2027-01-01T00:00:00Z", endDate: "2027-02-01T00:00:00Z" },
      201,
    ),
  );

  /** The valid caller's samples (ms), `count` in a row; each must answer 200. */
  async function validSamples(count) {
    const samples = [];
    for (let i = 0; i < count; i++) {
      const response = await ctx.request(operator, "GET", "/v1/operations?limit=20");
      if (response.status !== 200) throw new Error(`the valid caller got ${response.status}: ${JSON.stringify(response.body).slice(0, 300)}`);
      samples.push(response.ms);
    }
    return samples;
  }

  // Every flood's addresses are its own (documentation ranges, RFC 5737 and 3849): phases do not share a budget.
  let addressCounter = 0;

  /** Runs `flood` with IN_FLIGHT requests in flight until `stop()`, from `fixedAddress` unless it rotates; tallies its answers. */
  function startFlood(flood, phase, fixedAddress) {
    const tally = { sent: 0, unauthorized: 0, limited: 0, other: 0, roundTrips: 0 };
    let running = true;
    const workers = Array.from({ length: IN_FLIGHT }, async () => {
      while (running) {
        if (flood.path) {
          const response = await ctx.request(null, "GET", flood.path);
          tally.sent++;
          if (response.status !== 200) tally.other++;
          continue;
        }
        const address = flood.rotate ? `2001:db8:${phase}::${(addressCounter++).toString(16)}` : fixedAddress;
        const response = await ctx.request({ role: "OPERATOR", key: flood.key() }, "GET", "/v1/operations?limit=20", undefined, {
          "CF-Connecting-IP": address,
        });
        tally.sent++;
        tally.roundTrips += totalRoundTrips(response.headers);
        if (response.status === 401) tally.unauthorized++;
        else if (response.status === 429) tally.limited++;
        else tally.other++;
      }
    });
    return {
      tally,
      stop: async () => {
        running = false;
        await Promise.all(workers);
      },
    };
  }

  await validSamples(10); // warm: the valid key is cached
  const rows = [];
  for (const [phase, flood] of FLOODS.entries()) {
    console.error(`[auth-abuse] ${flood.name}: ${ROUNDS} rounds of ${SAMPLES_PER_ROUND} requests alone, then as many flooded …`);
    const alone = [];
    const flooded = [];
    let tally = { sent: 0, unauthorized: 0, limited: 0, other: 0, roundTrips: 0 };
    let floodMs = 0;
    const fixedAddress = `198.51.100.${phase + 1}`;
    for (let round = 0; round < ROUNDS; round++) {
      alone.push(...(await validSamples(SAMPLES_PER_ROUND)));
      const running = startFlood(flood, phase + 1, fixedAddress);
      const started = performance.now();
      await new Promise((resolve) => setTimeout(resolve, 200)); // the flood reaches its pace
      flooded.push(...(await validSamples(SAMPLES_PER_ROUND)));
      await running.stop();
      floodMs += performance.now() - started;
      tally = Object.fromEntries(Object.keys(tally).map((name) => [name, tally[name] + running.tally[name]]));
      console.error(`[auth-abuse]   round ${round + 1}/${ROUNDS}: flood sent ${running.tally.sent} (${running.tally.limited} answered 429)`);
    }
    if (tally.other) throw new Error(`${flood.name}: ${tally.other} flood requests answered something unexpected`);
    const rejected = flood.path ? 0 : tally.unauthorized + tally.limited;
    rows.push({
      flood: flood.name,
      "alone p50": percentile(alone, 0.5),
      "flooded p50": percentile(flooded, 0.5),
      "p50 ratio": percentile(flooded, 0.5) / percentile(alone, 0.5),
      "alone p99": percentile(alone, 0.99),
      "flooded p99": percentile(flooded, 0.99),
      "flood req/s": (tally.sent * 1000) / floodMs,
      "D1 trips/rejected": rejected ? tally.roundTrips / rejected : NaN,
      "429 share": rejected ? tally.limited / rejected : NaN,
    });
  }
  return {
    title: `Valid caller's GET /v1/operations (ms), alone and during a ${IN_FLIGHT}-in-flight flood of random keys; D1 round trips per rejected flood request and the share answered 429`,
    rows,
    notes: [
      "Alone and flooded alternate round by round; the valid key stays cached (it reads no key from D1 either way).",
      "One address: the failed-authentication budget (RATE_LIMIT_AUTH_FAILURES, as in wrangler.toml) engages; a new address each: it never does, which leaves the per-key costs alone.",
      "Forged signed keys fail their signature check before any query; old-format keys are read once on the replica (every key in the flood is new, so none is remembered).",
    ],
  };
}
