import { beforeAll, describe, expect, it } from "vitest";
import type { Caller } from "../helpers/client";
import { expectedOrder, listIds, seedOperations, type Op } from "./list-data";

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
    const expected = expectedOrder(data.filter((o) => o.type === "PUBLIC"), "-startDate,name");
    expect(await listIds(op, { type: "PUBLIC", sort: "-startDate,name" }, 2)).toEqual(expected);
  });

  it("ignores a repeated sort field after its first use", async () => {
    expect(await listIds(op, { sort: "code,-code" })).toEqual(expectedOrder(data, "code"));
  });
});
