import { beforeAll, describe, expect, it } from "vitest";
import { type Caller, callRoute, collectPages, createOperation, expectProblem, expectStatus, newTenant } from "../helpers/client";
import { putLines } from "./fixtures";
import { routes } from "../helpers/routes";

interface Line {
  variantExternalId: string;
  variantName: Record<string, string>;
  minQuantity: number;
  maxQuantity: number;
  recommendedQuantity: number | null;
}

const NAMES = ["Red Shirt", "blue shirt", "Green HAT", "Sock 50% off", "under_score", "Zebra", "apple", "Écharpe"];

/** 40 lines whose fields repeat with different periods, so every sort has ties and every filter several hits. */
const LINES: Line[] = Array.from({ length: 40 }, (_, i) => {
  const name = NAMES[i % NAMES.length];
  const variantName: Record<string, string> = i % 10 === 3 ? { fr: `Chemise ${name}` } : { en: `${name} ${i}`, fr: `Chemise ${i}` };
  const minQuantity = i % 3;
  return {
    variantExternalId: `V-${String((i * 17) % 40).padStart(2, "0")}`,
    variantName,
    minQuantity,
    maxQuantity: 10 + (i % 4),
    recommendedQuantity: i % 5 === 0 ? null : minQuantity + (i % 2),
  };
});

/** The sort key the API documents: variantName by the tenant default locale (en) else any locale, lower-cased. */
function sortValue(line: Line, field: string): string | number {
  switch (field) {
    case "variantName":
      return (line.variantName.en ?? Object.values(line.variantName)[0]).toLowerCase();
    case "recommendedQuantity":
      return line.recommendedQuantity ?? -1;
    default:
      return line[field as keyof Line] as string | number;
  }
}

function reference(lines: Line[], sort: string): string[] {
  const keys = sort.split(",").map((part) => ({ field: part.replace(/^-/, ""), desc: part.startsWith("-") }));
  const idDesc = keys[keys.length - 1].desc;
  const compare = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);
  return [...lines]
    .sort((a, b) => {
      for (const { field, desc } of keys) {
        const order = compare(sortValue(a, field), sortValue(b, field));
        if (order) return desc ? -order : order;
      }
      const order = compare(a.variantExternalId, b.variantExternalId);
      return idDesc ? -order : order;
    })
    .map((line) => line.variantExternalId);
}

let op: Caller;
let operationId: string;

beforeAll(async () => {
  op = await newTenant();
  const operation = await createOperation(op);
  operationId = operation.id;
  await putLines(op, operation.id, LINES);
});

const keysOf = async (query: Record<string, string | number>) =>
  (await collectPages(op, routes.listLines, { params: { operationId }, query: { limit: 7, ...query } })).items.map((line) => line.variantExternalId);

describe("line list sorts", () => {
  const fields = ["variantExternalId", "variantName", "minQuantity", "maxQuantity", "recommendedQuantity"];
  for (const sort of [...fields, ...fields.map((f) => `-${f}`), "minQuantity,-maxQuantity", "-recommendedQuantity,variantName"]) {
    it(`sorts by ${sort}, id last, across pages`, async () => {
      expect(await keysOf({ sort })).toEqual(reference(LINES, sort));
    });
  }

  it("defaults to variantExternalId ascending", async () => {
    expect(await keysOf({})).toEqual(reference(LINES, "variantExternalId"));
  });
});

describe("line list filters", () => {
  const matching = (predicate: (line: Line) => boolean) => reference(LINES.filter(predicate), "variantExternalId");

  it("variantIds and its alias variantExternalId take comma lists", async () => {
    expect(await keysOf({ variantIds: "V-03,V-07,NOPE,V-03" })).toEqual(["V-03", "V-07"]);
    expect(await keysOf({ variantExternalId: "V-11" })).toEqual(["V-11"]);
  });

  it("variantName is a case-insensitive substring of any locale, wildcards taken literally", async () => {
    const hasText = (text: string) => (line: Line) => Object.values(line.variantName).some((v) => v.toLowerCase().includes(text));
    expect(await keysOf({ variantName: "SHIRT" })).toEqual(matching(hasText("shirt")));
    expect(await keysOf({ variantName: "chemise" })).toEqual(matching(hasText("chemise")));
    expect((await keysOf({ variantName: "chemise" })).length).toBe(40);
    expect(await keysOf({ variantName: "50%" })).toEqual(matching(hasText("50%")));
    expect(await keysOf({ variantName: "r_s" })).toEqual(matching(hasText("r_s")));
    expect(await keysOf({ variantName: "%" })).toEqual(matching(hasText("%")));
    expect(await keysOf({ variantName: "ÉCHARPE".toLowerCase() })).toEqual(matching(hasText("écharpe")));
    expect(await keysOf({ variantName: "nothing like it" })).toEqual([]);
  });

  it("minQuantity, maxQuantity and recommendedQuantity match exact values and combine with AND", async () => {
    expect(await keysOf({ minQuantity: 2 })).toEqual(matching((l) => l.minQuantity === 2));
    expect(await keysOf({ maxQuantity: 12 })).toEqual(matching((l) => l.maxQuantity === 12));
    expect(await keysOf({ recommendedQuantity: 1 })).toEqual(matching((l) => l.recommendedQuantity === 1));
    expect(await keysOf({ recommendedQuantity: 0 })).toEqual(matching((l) => l.recommendedQuantity === 0));
    expect(await keysOf({ minQuantity: 1, maxQuantity: 11, sort: "-variantName" })).toEqual(
      reference(
        LINES.filter((l) => l.minQuantity === 1 && l.maxQuantity === 11),
        "-variantName",
      ),
    );
    expect(await keysOf({ variantName: "shirt", recommendedQuantity: 2, sort: "maxQuantity" })).toEqual(
      reference(
        LINES.filter((l) => l.recommendedQuantity === 2 && Object.values(l.variantName).some((v) => v.toLowerCase().includes("shirt"))),
        "maxQuantity",
      ),
    );
  });

  it("serves up to 1000 lines a page", async () => {
    expect(expectStatus(await callRoute(op, routes.listLines, { params: { operationId }, query: { limit: 1000 } }), 200).items.length).toBe(40);
  });

  it.each<{ name: string; query: Record<string, string | number> }>([
    { name: "limit 0", query: { limit: 0 } },
    { name: "limit 1001", query: { limit: 1001 } },
    { name: "an unknown sort field", query: { sort: "price" } },
    { name: "an empty sort item", query: { sort: "minQuantity,," } },
    { name: "a negative minQuantity", query: { minQuantity: -1 } },
    { name: "a maxQuantity that is not a number", query: { maxQuantity: "many" } },
    { name: "a fractional recommendedQuantity", query: { recommendedQuantity: 1.5 } },
    { name: "an unknown parameter", query: { colour: "red" } },
  ])("refuses $name with 400", async ({ query }) => {
    expectProblem(await callRoute(op, routes.listLines, { params: { operationId }, query }), 400, "validation_failed");
  });

  it("binds nextToken to its filters and sort", async () => {
    const first = expectStatus(await callRoute(op, routes.listLines, { params: { operationId }, query: { limit: 5, minQuantity: 1 } }), 200);
    expect(first.nextToken).toEqual(expect.any(String));
    expectProblem(
      await callRoute(op, routes.listLines, { params: { operationId }, query: { limit: 5, minQuantity: 2, nextToken: first.nextToken } }),
      400,
      "invalid_next_token",
    );
    expectProblem(
      await callRoute(op, routes.listLines, {
        params: { operationId },
        query: { limit: 5, minQuantity: 1, sort: "-variantExternalId", nextToken: first.nextToken },
      }),
      400,
      "invalid_next_token",
    );
    expectProblem(
      await callRoute(op, routes.listLines, { params: { operationId }, query: { limit: 5, minQuantity: 1, nextToken: `${first.nextToken}x` } }),
      400,
      "invalid_next_token",
    );
    // The token of one Operation does not open another's lines.
    const other = await createOperation(op);
    expectProblem(
      await callRoute(op, routes.listLines, { params: { operationId: other.id }, query: { limit: 5, minQuantity: 1, nextToken: first.nextToken } }),
      400,
      "invalid_next_token",
    );
    // Page size may change between pages: only the filters and sort are bound.
    expectStatus(await callRoute(op, routes.listLines, { params: { operationId }, query: { limit: 9, minQuantity: 1, nextToken: first.nextToken } }), 200);
  });

  it("answers an empty page for an Operation without lines, and 404 for an unknown one", async () => {
    const empty = await createOperation(op);
    expect(expectStatus(await callRoute(op, routes.listLines, { params: { operationId: empty.id } }), 200)).toEqual({ items: [], nextToken: null });
    expectProblem(await callRoute(op, routes.listLines, { params: { operationId: "op_nope" } }), 404, "not_found");
  });
});
