import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import type * as z from "zod";
import type { planBody } from "../../src/allocation/schemas";
import type { ShardName } from "../../src/platform/core/shards";
import { callRoute, expectProblem, expectStatus, newTenant, type Caller } from "../helpers/client";
import { answeringD1, type AnsweredRoundTrip } from "../helpers/recording-bindings";
import { queryPlan } from "../helpers/recording-db";
import { captureLog } from "../helpers/request-log";
import { routes } from "../helpers/routes";
import { cartBody, line, putAccounts, setUpOperation } from "../helpers/setup";
import { shardOf } from "../helpers/shards";

/*
 * A plan's pages each compute only the lines they cover: walked page by page, whatever the limit
 * (changed between pages too), they add up to the plan computed at once, and a page reads the rows
 * of a few lines however many lines the plan has.
 */

type PlanBody = z.input<typeof planBody>;
type Cap = { variantExternalId: string; accountId: string; maxQuantity: number };

const ACCOUNTS = ["A1", "A2", "A3", "A4", "A5"];
const ATTACHED = ACCOUNTS.slice(0, 4);
const key = (i: number) => `L${String(i).padStart(2, "0")}`;

/** `count` lines; every fourth in packs of 6 (the pools' remainders fall in whole packs). */
const linesOf = (count: number) =>
  Array.from({ length: count }, (_, i) => ({ variantExternalId: key(i), minQuantity: 0, maxQuantity: 600, ...(i % 4 === 3 && { quantityIncrement: 6 }) }));

/** A PRIVATE Operation of `count` lines (ATTACHED attached), pools on all but L02, some of them already ordered; and an earlier one all ACCOUNTS bought from. */
async function plannedCampaign(op: Caller, count: number) {
  await putAccounts(
    op,
    ACCOUNTS.map((accountId) => ({ accountId })),
  );
  const lines = linesOf(count);
  const operation = await setUpOperation(op, { lines, attach: ATTACHED });
  const pools = lines.filter((_, i) => i !== 2).map(({ variantExternalId }, i) => ({ variantExternalId, poolQuantity: 20 + ((i * 37) % 61) * 6 }));
  expectStatus(await callRoute(op, routes.setAllocations, { params: { operationId: operation.id }, body: pools }), 200);
  const earlier = await setUpOperation(op, { lines, attach: ACCOUNTS });
  const order = async (operationId: string, accountId: string, bought: [number, number][]) =>
    expectStatus(
      await callRoute(op, routes.createOrder, {
        body: cartBody(
          operationId,
          accountId,
          bought.map(([i, units]) => line(key(i), units)),
        ),
      }),
      201,
    );
  await order(operation.id, "A2", [
    [0, 4],
    [3, 12],
  ]);
  await order(operation.id, "A3", [[5, 2]]);
  // In the earlier Operation each line has buyers of its own (L06 none), so lines differ in how many accounts share them.
  for (const [a, accountId] of ACCOUNTS.entries()) {
    const bought = lines.map((_, i) => i).filter((i) => i !== 6 && (i + a) % 3 !== 0);
    await order(
      earlier.id,
      accountId,
      bought.map((i) => [i, i % 4 === 3 ? 6 * (1 + a) : 1 + ((i * 7 + a * 3) % 11)]),
    );
  }
  return { operationId: operation.id, earlierId: earlier.id };
}

const plan = (op: Caller, operationId: string, body: PlanBody, env?: Partial<Cloudflare.Env>) =>
  callRoute(op, routes.planAllocation, { params: { operationId }, body, env });

/** Every page of a plan, `limits` in turn for their limits; each full but the last, which alone has no nextToken. */
async function walk(op: Caller, operationId: string, body: PlanBody, limits: number[]): Promise<Cap[]> {
  const caps: Cap[] = [];
  let nextToken: string | undefined;
  for (let page = 0; ; page++) {
    const limit = limits[page % limits.length];
    const answer = expectStatus(await plan(op, operationId, { ...body, limit, ...(nextToken && { nextToken }) }), 200);
    caps.push(...answer.items);
    if (!answer.nextToken) return caps;
    expect(answer.items).toHaveLength(limit);
    nextToken = answer.nextToken;
  }
}

/** Each statement finds its rows by key, in the order asked: no table scanned (a bound list or the page's own lines may be), no sort of all it matched. */
async function expectSearchedByKey(queries: string[], shard: ShardName) {
  for (const query of queries) {
    const params = Array.from(query.matchAll(/\?/g), () => null);
    const plan = (await queryPlan({ sql: query, params, shard })).map((row) => row.detail);
    expect(
      plan.filter((detail) => /TEMP B-TREE|^SCAN (?!json_each|page_lines)/.test(detail)),
      `${query}\n${plan.join("\n")}`,
    ).toEqual([]);
  }
}

describe("a plan's pages", () => {
  afterEach(() => vi.restoreAllMocks());

  it("walked with any limit, changed between pages too, add up to the plan computed at once, for every basis", async () => {
    const op = await newTenant();
    const { operationId, earlierId } = await plannedCampaign(op, 12);
    const bodies: PlanBody[] = [
      { method: "equal" },
      { method: "proportional", basis: { weights: { A3: 1.5, A1: 3, A5: 2, A2: 0 } } },
      { method: "equal", basis: { weights: { A4: 9, A1: 1 } } },
      { method: "proportional", basis: { operationId: earlierId } },
      { method: "equal", basis: { operationId: earlierId } },
      { method: "equal", variantExternalIds: ["L09", "L02", "L00", "L09", "L11", "L06"] },
      { method: "proportional", variantExternalIds: ["L06", "L07", "L03"], basis: { operationId: earlierId } },
    ];
    for (const body of bodies) {
      const whole = expectStatus(await plan(op, operationId, body), 200);
      expect(whole.nextToken).toBeNull();
      expect(whole.items.length, JSON.stringify(body)).toBeGreaterThan(3);
      for (const limits of [[3], [4], [1, 5, 2]]) {
        expect(await walk(op, operationId, body, limits), `${JSON.stringify(body)} by ${limits}`).toEqual(whole.items);
      }
    }
    // What the pages split: by line then account, each line's caps within its pool (L02 has none), kept at what was ordered.
    const equal = expectStatus(await plan(op, operationId, { method: "equal" }), 200).items;
    expect(equal.map((cap) => [cap.variantExternalId, cap.accountId])).toEqual(
      linesOf(12)
        .filter((_, i) => i !== 2)
        .flatMap(({ variantExternalId }) => ATTACHED.map((accountId) => [variantExternalId, accountId])),
    );
    expect(equal.find((cap) => cap.variantExternalId === "L00" && cap.accountId === "A2")!.maxQuantity).toBeGreaterThanOrEqual(4);
    // Lines with no earlier buyers get no caps; the others, one per buyer.
    const byHistory = expectStatus(await plan(op, operationId, { method: "proportional", basis: { operationId: earlierId } }), 200).items;
    expect(byHistory.some((cap) => cap.variantExternalId === "L06")).toBe(false);
    expect(byHistory.filter((cap) => cap.variantExternalId === "L01").map((cap) => cap.accountId)).toEqual(["A1", "A2", "A4", "A5"]);
  });

  it("a nextToken holds for its body only, and cannot be forged", async () => {
    const op = await newTenant();
    const { operationId, earlierId } = await plannedCampaign(op, 6);
    const body: PlanBody = { method: "proportional", basis: { operationId: earlierId }, limit: 2 };
    const first = expectStatus(await plan(op, operationId, body), 200);
    const nextToken = first.nextToken!;
    expectStatus(await plan(op, operationId, { ...body, nextToken, limit: 5 }), 200);
    expectProblem(await plan(op, operationId, { ...body, method: "equal", nextToken }), 400, "invalid_next_token");
    expectProblem(await plan(op, operationId, { ...body, variantExternalIds: ["L01"], nextToken }), 400, "invalid_next_token");
    // One character of the signature changed (the second to last: the last may carry unused bits).
    const forged = `${nextToken.slice(0, -2)}${nextToken.at(-2) === "A" ? "B" : "A"}${nextToken.at(-1)}`;
    expect(forged).not.toBe(nextToken);
    expectProblem(await plan(op, operationId, { ...body, nextToken: forged }), 400, "invalid_next_token");
  });

  it("a page reads the rows of the lines it covers, each found by key, in one or two round trips", async () => {
    const op = await newTenant();
    const { operationId, earlierId } = await plannedCampaign(op, 40);
    const shard = await shardOf(op.tenantId);
    const log = captureLog();
    const planReads = (roundTrips: AnsweredRoundTrip[]) =>
      roundTrips.filter((trip) => trip.queries.some((query) => /"(operation_lines|account_line_totals|operation_accounts)"/.test(query)));
    // The body's weights: the whole page at once; the attached accounts, or an earlier Operation's buyers: read first.
    const bodies: [PlanBody, number][] = [
      [{ method: "proportional", basis: { weights: { A1: 1, A2: 2, A3: 3, A4: 4 } } }, 1],
      [{ method: "equal" }, 2],
      [{ method: "proportional", basis: { operationId: earlierId } }, 2],
    ];
    for (const [body, sequentialRoundTrips] of bodies) {
      let nextToken: string | undefined;
      let pages = 0;
      do {
        const { database, roundTrips } = answeringD1(env[shard]);
        const response = await plan(op, operationId, { ...body, limit: 3, ...(nextToken && { nextToken }) }, { [shard]: database });
        const answer = expectStatus(response, 200);
        const reads = planReads(roundTrips);
        if (pages < 2) for (const trip of reads) await expectSearchedByKey(trip.queries, shard);
        // Each page: at most two lines and their accounts' rows (the plan: 39 lines × 3 to 4 accounts).
        expect(
          reads.reduce((sum, trip) => sum + trip.rows, 0),
          `${JSON.stringify(body)}, page ${pages}`,
        ).toBeLessThanOrEqual(16);
        expect(log.lineOf(response)[0].d1SequentialRoundTrips, `${JSON.stringify(body)}, page ${pages}`).toBeLessThanOrEqual(sequentialRoundTrips);
        nextToken = answer.nextToken ?? undefined;
        pages++;
      } while (nextToken);
      expect(pages, JSON.stringify(body)).toBeGreaterThan(30);
    }
  });
});
