import { beforeAll, describe, expect, it } from "vitest";
import { type Caller, callRoute, expectProblem, expectStatus } from "../helpers/client";
import { expectFilter, expectedOrder, listIds, lower, SEED, seedOperations, type Op } from "./list-data";
import { routes } from "../helpers/routes";

let op: Caller;
let data: Op[];
beforeAll(async () => {
  ({ op, data } = await seedOperations());
});

describe("GET /v1/operations filters", () => {
  it("lists everything newest first by default", async () => {
    const ids = await listIds(op, {});
    expect(ids).toEqual(expectedOrder(data, "-createdAt"));
    expect(ids).toHaveLength(SEED.length);
    const one = expectStatus(await callRoute(op, routes.listOperations), 200);
    expect(one.items).toHaveLength(SEED.length);
    expect(one.nextToken).toBeNull();
    expect(one.items[0]).toEqual(data.find((o) => o.id === one.items[0].id));
  });

  it("filters by status (comma list)", async () => {
    await expectFilter(op, data, { status: "DRAFT" }, (o) => o.status === "DRAFT");
    await expectFilter(op, data, { status: "ACTIVE,INACTIVE" }, (o) => o.status !== "DRAFT");
    await expectFilter(op, data, { status: "ACTIVE, DRAFT,ACTIVE" }, (o) => o.status !== "INACTIVE");
  });

  it("filters by ids of each idType, and by the operationId alias", async () => {
    const [a, b, c] = data;
    await expectFilter(op, data, { ids: `${a.id},${c.id}` }, (o) => o.id === a.id || o.id === c.id);
    await expectFilter(op, data, { ids: `${a.id},${c.id}`, idType: "id" }, (o) => o.id === a.id || o.id === c.id);
    await expectFilter(op, data, { operationId: b.id }, (o) => o.id === b.id);
    await expectFilter(op, data, { operationId: `${a.id},${b.id}` }, (o) => o.id === a.id || o.id === b.id);
    await expectFilter(op, data, { ids: "C-alpha,c-charlie,nope", idType: "code" }, (o) => ["C-alpha", "c-charlie"].includes(o.code));
    // Codes and external ids match exactly (case matters).
    await expectFilter(op, data, { ids: "c-alpha", idType: "code" }, () => false);
    await expectFilter(op, data, { ids: "x1,x4", idType: "externalId" }, (o) => o.externalId === "x1" || o.externalId === "x4");
    await expectFilter(op, data, { operationId: "X1", idType: "externalId" }, (o) => o.externalId === "X1");
    // An id is not a code.
    await expectFilter(op, data, { ids: a.id, idType: "code" }, () => false);
  });

  it("filters by a case-insensitive name substring in any locale, with the operationName alias", async () => {
    const inAnyLocale = (needle: string) => (o: Op) => Object.values(o.name).some((v) => lower(v).includes(lower(needle)));
    for (const needle of ["spring", "SPRING", "Printemps", "herbst", "sale", "ÉTÉ", "été", "über", "ÜBER", "angebote", "LIQUIDACIÓN", "r"]) {
      await expectFilter(op, data, { name: needle }, inAnyLocale(needle));
    }
    await expectFilter(op, data, { operationName: "Spring" }, inAnyLocale("spring"));
    await expectFilter(op, data, { name: "nowhere" }, () => false);
  });

  it("treats % and _ in the name filter literally", async () => {
    await expectFilter(op, data, { name: "%" }, (o) => Object.values(o.name).some((v) => v.includes("%")));
    await expectFilter(op, data, { name: "_" }, (o) => Object.values(o.name).some((v) => v.includes("_")));
    await expectFilter(op, data, { name: "0%_o" }, (o) => o.code === "c-charlie");
    await expectFilter(op, data, { name: "a_b" }, (o) => o.code === "I-india");
    await expectFilter(op, data, { name: "a%b" }, () => false);
  });

  it("narrows the name filter to one locale with locale", async () => {
    const inLocale = (locale: string, needle: string) => (o: Op) => lower(o.name[locale] ?? "").includes(lower(needle));
    for (const [locale, needle] of [
      ["fr", "printemps"],
      ["en", "printemps"],
      ["en", "spring"],
      ["fr", "spring"],
      ["de", "herbst"],
      ["fr", "ÉTÉ"],
      ["fr", "été"],
      ["en", "été"],
      ["de", "über"],
      ["en", "ÜBER"],
      ["es", "LIQUIDACIÓN"],
      ["it", "a"],
    ]) {
      await expectFilter(op, data, { name: needle, locale }, inLocale(locale, needle));
    }
    await expectFilter(op, data, { operationName: "HIVER", locale: "fr" }, inLocale("fr", "hiver"));
    // Tags match ignoring case, as BCP 47 tags do.
    await expectFilter(op, data, { name: "été", locale: "FR" }, inLocale("fr", "été"));
  });

  it("filters by type", async () => {
    await expectFilter(op, data, { type: "PUBLIC" }, (o) => o.type === "PUBLIC");
    await expectFilter(op, data, { type: "PRIVATE" }, (o) => o.type === "PRIVATE");
  });

  it("filters by date ranges, bounds included", async () => {
    const march1 = "2027-03-01T00:00:00Z";
    await expectFilter(op, data, { startDateFrom: march1 }, (o) => o.startDate >= march1);
    await expectFilter(op, data, { startDateTo: march1 }, (o) => o.startDate <= march1);
    await expectFilter(op, data, { startDateFrom: march1, startDateTo: march1 }, (o) => o.startDate === march1);
    // Other spellings of the same instant are the same bound.
    await expectFilter(op, data, { startDateFrom: "2027-03-01T00:00:00Z", startDateTo: "2027-03-01T01:00:00+01:00" }, (o) => o.startDate === march1);
    const aprilEnd = "2027-04-30T23:59:59Z";
    await expectFilter(op, data, { endDateFrom: aprilEnd }, (o) => o.endDate >= aprilEnd);
    await expectFilter(op, data, { endDateTo: aprilEnd }, (o) => o.endDate <= aprilEnd);
    await expectFilter(op, data, { endDateFrom: "2027-03-01T00:00:00Z", endDateTo: aprilEnd }, (o) => o.endDate >= march1 && o.endDate <= aprilEnd);
    await expectFilter(
      op,
      data,
      { startDateFrom: "2027-01-01T00:00:00Z", startDateTo: "2027-06-30T00:00:00Z", endDateFrom: "2027-04-01T00:00:00Z" },
      (o) => o.startDate >= "2027-01-01T00:00:00Z" && o.startDate <= "2027-06-30T00:00:00Z" && o.endDate >= "2027-04-01T00:00:00Z",
    );
    // An empty range is no error.
    await expectFilter(op, data, { startDateFrom: "2030-01-01T00:00:00Z", startDateTo: "2020-01-01T00:00:00Z" }, () => false);
  });

  it("filters by owner ids (any of them)", async () => {
    await expectFilter(op, data, { ownerIds: "u1" }, (o) => o.ownerIds.includes("u1"));
    await expectFilter(op, data, { ownerIds: "u3,u4" }, (o) => o.ownerIds.includes("u3") || o.ownerIds.includes("u4"));
    await expectFilter(op, data, { ownerIds: "nobody" }, () => false);
  });

  it("combines filters with AND", async () => {
    await expectFilter(
      op,
      data,
      { status: "DRAFT,ACTIVE", type: "PUBLIC", name: "spring" },
      (o) => o.status !== "INACTIVE" && o.type === "PUBLIC" && Object.values(o.name).some((v) => lower(v).includes("spring")),
    );
    await expectFilter(
      op,
      data,
      { ownerIds: "u1", startDateTo: "2027-03-01T00:00:00Z", ids: "C-alpha,D-delta,H-hotel", idType: "code" },
      (o) => o.ownerIds.includes("u1") && o.startDate <= "2027-03-01T00:00:00Z" && ["C-alpha", "D-delta", "H-hotel"].includes(o.code),
    );
  });

  it("accepts 500 ids in one filter (one bound parameter under D1's limits)", async () => {
    const ids = [data[0].id, data[3].id, ...Array.from({ length: 498 }, (_, i) => `op_missing_${i}`)];
    const res = await callRoute(op, routes.listOperations, { query: { ids: ids.join(",") } });
    const page = expectStatus(res, 200);
    expect(page.items.map((o: Op) => o.id).sort()).toEqual([data[0].id, data[3].id].sort());
    const codes = [...Array.from({ length: 499 }, (_, i) => `NOPE-${i}`), "J-juliet"];
    const byCode = expectStatus(await callRoute(op, routes.listOperations, { query: { ids: codes.join(","), idType: "code" } }), 200);
    expect(byCode.items.map((o: Op) => o.code)).toEqual(["J-juliet"]);
    expectProblem(await callRoute(op, routes.listOperations, { query: { ids: [...ids, "one-more"].join(",") } }), 400, "validation_failed");
  });
});
