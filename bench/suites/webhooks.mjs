// Webhooks (issue 14): the lag from an event's commit to its arrival at a real receiver (Node, on
// loopback) at a steady 50 events/s, and what the consumer delivers when events come as fast as the
// API takes them. Each event is one rule created (POST /v1/buying-policies/quotas/rules).
import { startWebhookReceiver } from "../../test/support/webhook-receiver.mjs";

const STEADY_RATE = 50;
const STEADY_SECONDS = 20;
const BURST_EVENTS = 2000;
const BURST_IN_FLIGHT = 20;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const r = (value) => Math.round(value * 10) / 10;

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function waitForRecords(receiver, token, count, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while ((receiver.records.get(token)?.length ?? 0) < count && Date.now() < deadline) await sleep(50);
  return receiver.records.get(token) ?? [];
}

export default async function webhooksSuite(ctx) {
  const receiver = await startWebhookReceiver();
  const rows = [];
  const notes = [];
  try {
    const subscribe = async (operator, token) =>
      ctx.expect(operator, "POST", "/v1/webhooks", { url: `${receiver.url}/hooks/ok/${token}`, eventTypes: ["rule.created"] }, 201);
    const createRule = (operator, i) => ctx.expect(operator, "POST", "/v1/buying-policies/quotas/rules", { accountId: `ACC-${i}`, minimum: 100 + i }, 201);

    // ---- Lag at a steady 50 events/s (open loop: a request every 20 ms, whatever the answers do) ----
    const { operator: steady } = await ctx.newTenant();
    await subscribe(steady, "steady");
    const total = STEADY_RATE * STEADY_SECONDS;
    const started = performance.now();
    const writes = [];
    for (let i = 0; i < total; i++) {
      const due = started + (i * 1000) / STEADY_RATE;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      writes.push(createRule(steady, i));
    }
    await Promise.all(writes);
    const records = await waitForRecords(receiver, "steady", total, 120_000);
    const lags = records.map((record) => record.receivedAt - Date.parse(JSON.parse(record.body).at)).sort((a, b) => a - b);
    const distinct = new Set(records.map((record) => record.headers["svc-event-id"])).size;
    rows.push({
      case: `commit → receiver lag at ${STEADY_RATE} events/s for ${STEADY_SECONDS} s`,
      events: total,
      delivered: distinct,
      p50: r(percentile(lags, 50)),
      p99: r(percentile(lags, 99)),
      max: r(lags[lags.length - 1]),
      unit: "ms",
    });
    if (records.length !== distinct) notes.push(`${records.length - distinct} repeated deliveries (at least once; receivers dedupe on svc-event-id).`);

    // ---- Consumer throughput: events as fast as the API takes them ----------------------------------
    const { operator: burst } = await ctx.newTenant();
    await subscribe(burst, "burst");
    const burstStarted = performance.now();
    const burstStartedAt = Date.now();
    await ctx.pool(BURST_EVENTS, BURST_IN_FLIGHT, (i) => createRule(burst, i));
    const producedMs = performance.now() - burstStarted;
    const burstRecords = await waitForRecords(receiver, "burst", BURST_EVENTS, 300_000);
    const received = burstRecords.map((record) => record.receivedAt).sort((a, b) => a - b);
    const spanMs = received[received.length - 1] - received[0];
    const drainedMs = received[received.length - 1] - burstStartedAt;
    rows.push({
      case: `${BURST_EVENTS} events, ${BURST_IN_FLIGHT} writes in flight`,
      events: BURST_EVENTS,
      delivered: new Set(burstRecords.map((record) => record.headers["svc-event-id"])).size,
      produced: `${r((BURST_EVENTS * 1000) / producedMs)}/s`,
      consumed: `${r((burstRecords.length * 1000) / spanMs)}/s`,
      allDeliveredAfter: `${r(drainedMs / 1000)} s`,
      afterLastWrite: `${r(drainedMs - producedMs)} ms`,
    });
    notes.push(
      "The burst measures whether the consumer keeps pace with the API's own write rate here (it does when `afterLastWrite` stays near the steady lag); a backlog larger than the API can write locally was not measured.",
      "Local wrangler dev runs the Worker, its queue consumer and D1 in one workerd process; queue batches wait up to max_batch_timeout = 1 s to fill (wrangler.toml), which is most of the lag.",
    );
  } finally {
    await receiver.close();
  }
  return { title: "Webhooks: delivery lag and consumer throughput", rows, notes };
}
