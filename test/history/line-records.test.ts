import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { shardNames } from "../../src/platform/core/shards";
import { callRoute, createOperation, expectStatus, newTenant, type Caller } from "../helpers/client";
import { routes } from "../helpers/routes";
import { tenantDb } from "../helpers/shards";

/*
 * The records of a bulk line write, as stored: each line's record in the set's key order (created
 * before updated, then by key), its ordinal its place, its changes the JSON text of only what changed.
 */

afterEach(() => vi.restoreAllMocks());

interface StoredRecord {
  action: string;
  resource_id: string;
  ordinal: number;
  changes: string;
}

interface Line {
  variantExternalId: string;
  variantId?: string | null;
  variantName?: Record<string, string>;
  minQuantity?: number;
  maxQuantity?: number;
  recommendedQuantity?: number | null;
  quantityIncrement?: number;
}

const FIELDS = ["variantId", "variantName", "minQuantity", "maxQuantity", "recommendedQuantity", "quantityIncrement"] as const;

/** The line records of the Operation's newest change set, straight from its shard, in ordinal order. */
async function newestLineRecords(op: Caller, operationId: string): Promise<StoredRecord[]> {
  const db = await tenantDb(op.tenantId);
  const { results } = await db
    .prepare(
      `select r.action, r.resource_id, r.ordinal, r.changes from change_records r
       where r.set_id = (select id from change_sets where operation_id = ? order by version desc limit 1) and r.resource_type = 'l' order by r.ordinal`,
    )
    .bind(operationId)
    .all<StoredRecord>();
  return results;
}

/** A JSON text with every object's members in key order: equal for equal values, whatever their order. */
const canonical = (value: unknown): string =>
  value !== null && typeof value === "object" && !Array.isArray(value)
    ? `{${Object.keys(value)
        .sort()
        .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`)
        .join(",")}}`
    : JSON.stringify(value);

/**
 * The records a PUT of `inputs` over `stored` makes, worked out here on their own: each input over its
 * stored line (omitted fields kept), a new line with every field, a stored one with each field that
 * changes as JSON, in any key order, as [previous, next]; ordered by action then key.
 */
function expectedRecords(inputs: Line[], stored: Map<string, Required<Line>>): StoredRecord[] {
  const records = inputs.flatMap((input) => {
    const before = stored.get(input.variantExternalId);
    const after: Required<Line> = {
      variantExternalId: input.variantExternalId,
      variantId: input.variantId === undefined ? (before?.variantId ?? null) : input.variantId,
      variantName: input.variantName ?? before?.variantName ?? {},
      minQuantity: input.minQuantity ?? before!.minQuantity,
      maxQuantity: input.maxQuantity ?? before!.maxQuantity,
      recommendedQuantity: input.recommendedQuantity === undefined ? (before?.recommendedQuantity ?? null) : input.recommendedQuantity,
      quantityIncrement: input.quantityIncrement ?? before?.quantityIncrement ?? 1,
    };
    stored.set(after.variantExternalId, after);
    if (!before)
      return [{ action: "c", id: after.variantExternalId, changes: JSON.stringify(Object.fromEntries(FIELDS.map((field) => [field, after[field]]))) }];
    const changed = FIELDS.filter((field) => canonical(before[field]) !== canonical(after[field]));
    if (!changed.length) return [];
    return [
      { action: "u", id: after.variantExternalId, changes: JSON.stringify(Object.fromEntries(changed.map((field) => [field, [before[field], after[field]]]))) },
    ];
  });
  const key = (record: { action: string; id: string }) => `${record.action}${record.id}`;
  return records
    .sort((a, b) => (key(a) < key(b) ? -1 : 1))
    .map((record, ordinal) => ({ action: record.action, resource_id: record.id, ordinal, changes: record.changes }));
}

describe("records of a bulk line write", () => {
  it("are what changed, to the byte: created with every field, updated with each changed field, none for an unchanged line", async () => {
    const op = await newTenant();
    const operation = await createOperation(op);
    const params = { operationId: operation.id };
    const stored = new Map<string, Required<Line>>();
    const first: Line[] = [
      { variantExternalId: "A-plain", variantName: { en: "Plain", fr: "Simple" }, minQuantity: 1, maxQuantity: 10 },
      {
        variantExternalId: "B-text",
        variantName: { en: 'Quote " back\\slash é 😀 漢字 \u2028', de: "Größe" },
        minQuantity: 0,
        maxQuantity: 5,
        recommendedQuantity: 2,
      },
      { variantExternalId: "C-ids", variantId: "V-1", variantName: {}, minQuantity: 2, maxQuantity: 8, quantityIncrement: 2 },
      { variantExternalId: "D-order", variantName: { fr: "Ordre", en: "Order" }, minQuantity: 1, maxQuantity: 9, recommendedQuantity: 3 },
      { variantExternalId: "E-same", variantName: { en: "Same" }, minQuantity: 1, maxQuantity: 9 },
      { variantExternalId: "F-reorder-and-max", variantName: { en: "One", fr: "Un" }, minQuantity: 1, maxQuantity: 9 },
      { variantExternalId: "É-non-ascii-key", variantName: { en: "Accent" }, minQuantity: 1, maxQuantity: 9 },
    ];
    expectStatus(await callRoute(op, routes.putLines, { params, body: first }), 200);
    expect(await newestLineRecords(op, operation.id)).toEqual(expectedRecords(first, stored));

    const second: Line[] = [
      { variantExternalId: "A-plain", maxQuantity: 12 }, // omitted fields kept
      { variantExternalId: "B-text", variantName: { de: "Größe", en: 'Quote " back\\slash é 😀 漢字 \u2028!' }, recommendedQuantity: null },
      { variantExternalId: "C-ids", variantId: null, quantityIncrement: 1, minQuantity: 1 },
      { variantExternalId: "D-order", variantName: { en: "Order", fr: "Ordre" } }, // the same name in another key order: no record
      { variantExternalId: "E-same", variantName: { en: "Same" }, minQuantity: 1, maxQuantity: 9 },
      { variantExternalId: "F-reorder-and-max", variantName: { fr: "Un", en: "One" }, maxQuantity: 10 },
      { variantExternalId: "G-new", minQuantity: 0, maxQuantity: 1 },
      {
        variantExternalId: "0-new-first",
        variantId: "V-0",
        variantName: { en: "Zero" },
        minQuantity: 3,
        maxQuantity: 6,
        recommendedQuantity: 3,
        quantityIncrement: 3,
      },
      { variantExternalId: "É-non-ascii-key", variantId: "V-É" },
    ];
    expectStatus(await callRoute(op, routes.putLines, { params, body: second }), 200);
    const records = await newestLineRecords(op, operation.id);
    expect(records).toEqual(expectedRecords(second, stored));
    expect(records.map((record) => record.resource_id)).not.toContain("D-order");
    expect(JSON.parse(records.find((record) => record.resource_id === "F-reorder-and-max")!.changes)).toEqual({ maxQuantity: [9, 10] });
  });

  it("run their ordinals on in key order across statements when they are too large for one bound value", async () => {
    const op = await newTenant();
    const operation = await createOperation(op);
    const params = { operationId: operation.id };
    const stored = new Map<string, Required<Line>>();
    const longName = (i: number, word: string) => ({ en: `${`Long ${word} `.repeat(30)}${i}`, fr: `${`Nom ${word} `.repeat(30)}${i}` });
    // Keys sent out of order, half of them new the second time: each PUT's records are well over one 1.5 MB value.
    const key = (i: number) => `K-${String((i * 7919) % 5000).padStart(4, "0")}`;
    const first = Array.from({ length: 2500 }, (_, i) => ({
      variantExternalId: key(i * 2),
      variantName: longName(i, "name"),
      minQuantity: 0,
      maxQuantity: 10,
    }));
    expectStatus(await callRoute(op, routes.putLines, { params, body: first }), 200);
    expect(await newestLineRecords(op, operation.id)).toEqual(expectedRecords(first, stored));
    const second = Array.from({ length: 5000 }, (_, i) => ({
      variantExternalId: key(i),
      variantName: longName(i, "renamed"),
      minQuantity: 0,
      maxQuantity: 10,
    }));
    expectStatus(await callRoute(op, routes.putLines, { params, body: second }), 200);
    const records = await newestLineRecords(op, operation.id);
    expect(records.reduce((bytes, record) => bytes + record.changes.length, 0)).toBeGreaterThan(3_000_000);
    expect(records).toEqual(expectedRecords(second, stored));
  });

  it("bind only each record's key and changes: its type, action and ordinal are the statement's", async () => {
    const op = await newTenant();
    const operation = await createOperation(op);
    const params = { operationId: operation.id };
    const lines = (max: number) =>
      Array.from({ length: 5000 }, (_, i) => ({ variantExternalId: `SKU-${i}`, variantName: { en: `Shirt ${i}` }, minQuantity: 0, maxQuantity: max }));
    expectStatus(await callRoute(op, routes.putLines, { params, body: lines(10) }), 200);

    // The values bound to the statements that insert change records, as they are prepared on the tenant's shards.
    const bound: unknown[] = [];
    for (const name of shardNames(env)) {
      const database = env[name];
      const withSession = database.withSession.bind(database);
      vi.spyOn(database, "withSession").mockImplementation((start) => {
        const session = withSession(start);
        const prepare = session.prepare.bind(session);
        return new Proxy(session, {
          get(target, prop) {
            if (prop !== "prepare") return Reflect.get(target, prop, target);
            return (query: string) => {
              const statement = prepare(query);
              const bind = statement.bind.bind(statement);
              const recordsInsert = query.startsWith('insert into "change_records"');
              const recording = (...values: unknown[]) => {
                if (recordsInsert) bound.push(...values);
                return bind(...values);
              };
              return Object.assign(statement, { bind: recording });
            };
          },
        }) as D1DatabaseSession;
      });
    }
    expectStatus(await callRoute(op, routes.putLines, { params, body: lines(11) }), 200);
    const records = await newestLineRecords(op, operation.id);
    expect(records).toHaveLength(5000);
    const perRecord = bound.filter((value): value is string => typeof value === "string" && value.startsWith("[["));
    expect(perRecord).toHaveLength(1);
    expect(JSON.parse(perRecord[0])).toEqual(records.map((record) => [record.resource_id, JSON.parse(record.changes)]));
  });
});
