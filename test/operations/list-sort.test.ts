import { beforeAll, describe, expect, it } from "vitest";
import { type Caller, callRoute, createOperation, expectStatus, newTenant } from "../helpers/client";
import { expectedOrder, listIds, seedOperations, type Op } from "./list-data";
import { routes } from "../helpers/routes";

let op: Caller;
let data: Op[];
beforeAll(async () => {
  ({ op, data } = await seedOperations());
});

describe("GET /v1/operations sort", () => {
  const sorts = [
    "name",
    "-name",
    "code",
    "-code",
    "startDate",
    "-startDate",
    "endDate",
    "-endDate",
    "createdAt",
    "-createdAt",
    "status",
    "-status",
    "status,name",
    "-status,name",
    "status,-startDate",
    "startDate,-code",
    "-endDate,-name",
    "endDate,startDate,code",
    "-status,-endDate,name",
  ];
  for (const sort of sorts) {
    it(`sorts by ${sort}, walked page by page`, async () => {
      const expected = expectedOrder(data, sort);
      for (const limit of [2, 500]) {
        expect(await listIds(op, { sort }, limit), `${sort} limit ${limit}`).toEqual(expected);
      }
    });
  }

  it("sorts by the name in one locale with locale (missing locale first)", async () => {
    for (const [sort, locale] of [
      ["name", "fr"],
      ["-name", "fr"],
      ["name", "de"],
      ["name,-code", "en"],
      ["-name,code", "fr"],
    ]) {
      expect(await listIds(op, { sort, locale }), `${sort} locale=${locale}`).toEqual(expectedOrder(data, sort, locale));
    }
  });

  it("applies filters before sorting and paging", async () => {
    const expected = expectedOrder(
      data.filter((o) => o.type === "PUBLIC"),
      "-startDate,name",
    );
    expect(await listIds(op, { type: "PUBLIC", sort: "-startDate,name" }, 2)).toEqual(expected);
  });

  it("ignores a repeated sort field after its first use", async () => {
    expect(await listIds(op, { sort: "code,-code" })).toEqual(expectedOrder(data, "code"));
  });
});

describe("name sort and the tenant's default locale", () => {
  it("sorts by the name in the tenant's default locale, falling back to its base language, then to the first locale by tag", async () => {
    const op = await newTenant({ defaultLocale: "fr-CA" });
    const names = [
      { en: "Apple", fr: "Zèbre" },
      { en: "Zoo", fr: "abricot" },
      { en: "Mango", fr: "Mangue" },
      { de: "Birne", it: "Pera" },
      { "fr-CA": "Bleuet", fr: "Myrtille", en: "Blueberry" },
    ];
    const created = [];
    for (const name of names) created.push(await createOperation(op, { name }));
    const key = (name: Record<string, string>) => (name["fr-CA"] ?? name.fr ?? name[Object.keys(name).sort()[0]]).toLowerCase();
    const expected = created
      .map((o) => ({ id: o.id, key: key(o.name) }))
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.id < b.id ? -1 : 1))
      .map((o) => o.id);
    expect(await listIds(op, { sort: "name" }, 2)).toEqual(expected);
    expect(await listIds(op, { sort: "-name" }, 2)).toEqual([...expected].reverse());
    // A name change moves the Operation in the order.
    const last = expected[expected.length - 1];
    expectStatus(await callRoute(op, routes.patchOperation, { params: { operationId: last }, body: { name: { "fr-CA": "Aaa" } } }), 200);
    expect(await listIds(op, { sort: "name" }, 2)).toEqual([last, ...expected.slice(0, -1)]);
  });
});
