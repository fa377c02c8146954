import { describe, expect, it } from "vitest";
import { type Caller, callRoute, collectPages, expectProblem, expectStatus, newTenant } from "../helpers/client";
import { accountWithKey, setUpOperation, type LineSpec } from "../helpers/setup";
import { routes } from "../helpers/routes";

const frontIds = async (caller: Caller, query: Record<string, string | number | undefined> = {}) =>
  (await collectPages(caller, routes.listFrontOperations, { query })).items.map((o) => o.id);

describe("front representations", () => {
  it("lists only ACTIVE Operations open now", async () => {
    const op = await newTenant();
    const open = await setUpOperation(op, { type: "PUBLIC" });
    await setUpOperation(op, { type: "PUBLIC", status: "DRAFT" });
    await setUpOperation(op, { type: "PUBLIC", status: "INACTIVE" });
    await setUpOperation(op, { type: "PUBLIC", overrides: { startDate: "2098-01-01T00:00:00Z", endDate: "2099-01-01T00:00:00Z" } });
    await setUpOperation(op, { type: "PUBLIC", overrides: { startDate: "2020-01-01T00:00:00Z", endDate: "2021-01-01T00:00:00Z" } });
    expect(await frontIds(op)).toEqual([open.id]);
    // The admin list still has all five.
    expect((await collectPages(op, routes.listOperations)).items).toHaveLength(5);
    // A status filter narrows further, never widens.
    expect(await frontIds(op, { status: "DRAFT" })).toEqual([]);
    expect(await frontIds(op, { status: "ACTIVE,DRAFT" })).toEqual([open.id]);
  });

  it("shows an ACCOUNT key the PUBLIC Operations and the PRIVATE ones attached to its accounts", async () => {
    const op = await newTenant();
    const buyer = await accountWithKey(op);
    const publicOne = await setUpOperation(op, { type: "PUBLIC" });
    const attached = await setUpOperation(op, { attach: [buyer.accountId] });
    const notAttached = await setUpOperation(op);
    expect(new Set(await frontIds(buyer.caller))).toEqual(new Set([publicOne.id, attached.id]));
    expect(new Set(await frontIds(op))).toEqual(new Set([publicOne.id, attached.id, notAttached.id]));
    expectStatus(await callRoute(buyer.caller, routes.getFrontOperation, { params: { operationId: attached.id } }), 200);
    expectProblem(await callRoute(buyer.caller, routes.getFrontOperation, { params: { operationId: notAttached.id } }), 404, "not_found");
    expectProblem(await callRoute(buyer.caller, routes.listFrontLines, { params: { operationId: notAttached.id } }), 404, "not_found");
  });

  it("serves localized fields as strings: exact tag → base language → tenant default → any", async () => {
    const op = await newTenant({ defaultLocale: "de" });
    const operation = await setUpOperation(op, {
      type: "PUBLIC",
      overrides: {
        name: { en: "Spring", fr: "Printemps", "fr-CA": "Printemps québécois", de: "Frühling" },
        description: { en: "Only in English" },
      },
    });
    const read = async (locale?: string) =>
      expectStatus(await callRoute(op, routes.getFrontOperation, { params: { operationId: operation.id }, headers: locale ? { locale } : {} }), 200);
    expect(await read("fr-CA")).toMatchObject({ name: "Printemps québécois", locale: "fr-CA" });
    expect(await read("fr-FR")).toMatchObject({ name: "Printemps", locale: "fr" });
    expect(await read("fr")).toMatchObject({ name: "Printemps", locale: "fr" });
    expect(await read("en-GB")).toMatchObject({ name: "Spring", locale: "en" });
    expect(await read("es-ES")).toMatchObject({ name: "Frühling", locale: "de" });
    expect(await read()).toMatchObject({ name: "Frühling", locale: "de" });
    // description has neither fr nor de: any value.
    expect((await read("fr-FR")).description).toBe("Only in English");

    const elsewhere = await setUpOperation(op, { type: "PUBLIC", overrides: { name: { nl: "Lente", it: "Primavera" } } });
    const any = expectStatus(await callRoute(op, routes.getFrontOperation, { params: { operationId: elsewhere.id }, headers: { locale: "es" } }), 200);
    expect(["Lente", "Primavera"]).toContain(any.name);
    expect(any.locale).toBe(any.name === "Lente" ? "nl" : "it");
    expect(any.description).toBeNull();
  });

  it("is the admin representation with strings, plus locale and the svc-store-view echo", async () => {
    const op = await newTenant();
    const operation = await setUpOperation(op, { type: "PUBLIC", overrides: { description: { en: "Desc", fr: "Descr" } } });
    const admin = expectStatus(await callRoute(op, routes.getOperation, { params: { operationId: operation.id } }), 200);
    const front = expectStatus(
      await callRoute(op, routes.getFrontOperation, { params: { operationId: operation.id }, headers: { locale: "fr", "svc-store-view": "sv_fr" } }),
      200,
    );
    expect(front).toEqual({ ...admin, name: "Printemps", description: "Descr", locale: "fr", storeView: "sv_fr" });
    const listed = expectStatus(await callRoute(op, routes.listFrontOperations, { headers: { locale: "en" } }), 200);
    expect(listed.items[0]).toEqual({ ...admin, name: "Spring", description: "Desc", locale: "en", storeView: null });
  });

  it("pages and filters like the admin list", async () => {
    const op = await newTenant();
    const ids: string[] = [];
    for (const name of ["Alpha", "Bravo", "Charlie", "Delta", "Echo"]) {
      ids.push((await setUpOperation(op, { type: "PUBLIC", overrides: { name: { en: name } } })).id);
    }
    await setUpOperation(op, { type: "PUBLIC", status: "DRAFT", overrides: { name: { en: "Alpha draft" } } });
    const pages = await collectPages(op, routes.listFrontOperations, { query: { limit: 2 } });
    expect(pages.pages).toBe(3);
    expect(pages.items.map((o) => o.id)).toEqual([...ids].reverse());
    expect((await collectPages(op, routes.listFrontOperations, { query: { sort: "name", limit: 2 } })).items.map((o) => o.name)).toEqual([
      "Alpha",
      "Bravo",
      "Charlie",
      "Delta",
      "Echo",
    ]);
    expect(await frontIds(op, { name: "ALPH" })).toEqual([ids[0]]);
    expect(await frontIds(op, { ids: `${ids[1]},${ids[3]}` })).toEqual([ids[3], ids[1]]);
    const first = expectStatus(await callRoute(op, routes.listFrontOperations, { query: { limit: 2 } }), 200);
    expectProblem(await callRoute(op, routes.listFrontOperations, { query: { limit: 2, name: "a", nextToken: first.nextToken } }), 400, "invalid_next_token");
    // A token of the admin list does not open the front list.
    const admin = expectStatus(await callRoute(op, routes.listOperations, { query: { limit: 2 } }), 200);
    expectProblem(await callRoute(op, routes.listFrontOperations, { query: { limit: 2, nextToken: admin.nextToken } }), 400, "invalid_next_token");
    expectProblem(await callRoute(op, routes.listFrontOperations, { query: { limit: 0 } }), 400, "validation_failed");
  });

  it("serves an open Operation's lines with variantName as a string, same filters and pagination", async () => {
    const op = await newTenant({ defaultLocale: "en" });
    const lines: LineSpec[] = [
      { variantExternalId: "SKU-1", minQuantity: 1, maxQuantity: 5, variantName: { en: "Red shirt", fr: "Chemise rouge" }, recommendedQuantity: 2 },
      { variantExternalId: "SKU-2", minQuantity: 0, maxQuantity: 9, variantName: { en: "Blue shirt" } },
      { variantExternalId: "SKU-3", minQuantity: 0, maxQuantity: 9, variantName: { fr: "Pantalon" } },
      { variantExternalId: "SKU-4", minQuantity: 0, maxQuantity: 9 },
    ];
    const operation = await setUpOperation(op, { type: "PUBLIC", lines });
    const page = await collectPages(op, routes.listFrontLines, { params: { operationId: operation.id }, query: { limit: 3 } });
    expect(page.pages).toBe(2);
    const res = await callRoute(op, routes.listFrontLines, { params: { operationId: operation.id }, headers: { locale: "fr-BE", "svc-store-view": "sv" } });
    expect(expectStatus(res, 200).items.map((l) => [l.variantExternalId, l.variantName, l.locale])).toEqual([
      ["SKU-1", "Chemise rouge", "fr"],
      ["SKU-2", "Blue shirt", "en"],
      ["SKU-3", "Pantalon", "fr"],
      ["SKU-4", null, null],
    ]);
    expect(res.body.items[0]).toMatchObject({ minQuantity: 1, maxQuantity: 5, recommendedQuantity: 2, variantId: null, storeView: "sv" });
    const filtered = expectStatus(
      await callRoute(op, routes.listFrontLines, { params: { operationId: operation.id }, query: { variantName: "shirt", sort: "-variantExternalId" } }),
      200,
    );
    expect(filtered.items.map((l) => l.variantExternalId)).toEqual(["SKU-2", "SKU-1"]);
  });

  it("answers 404 for Operations that are not open, unknown, or another tenant's", async () => {
    const op = await newTenant();
    const other = await newTenant();
    const draft = await setUpOperation(op, { type: "PUBLIC", status: "DRAFT" });
    const inactive = await setUpOperation(op, { type: "PUBLIC", status: "INACTIVE" });
    const future = await setUpOperation(op, { type: "PUBLIC", overrides: { startDate: "2098-01-01T00:00:00Z", endDate: "2099-01-01T00:00:00Z" } });
    const foreign = await setUpOperation(other, { type: "PUBLIC" });
    for (const id of [draft.id, inactive.id, future.id, foreign.id, "op_unknown"]) {
      expectProblem(await callRoute(op, routes.getFrontOperation, { params: { operationId: id } }), 404, "not_found");
      expectProblem(await callRoute(op, routes.listFrontLines, { params: { operationId: id } }), 404, "not_found");
    }
    expect(await frontIds(op)).toEqual([]);
    expect(await frontIds(other)).toEqual([foreign.id]);
  });
});
