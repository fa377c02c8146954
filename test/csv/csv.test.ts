import fc from "fast-check";
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, collectPages, expectProblem, expectStatus, newTenant, type Caller, callRoute, type ApiResponse } from "../helpers/client";
import { servedDocument } from "../helpers/openapi";
import { expectCleanProblem } from "../helpers/problems";
import { routes } from "../helpers/routes";
import { ownLineFields, putAccounts, setUpOperation } from "../helpers/setup";

/** A request with a raw body and headers of our choosing (CSV in, CSV out). */
async function raw(caller: Caller, method: string, path: string, init: { body?: string; contentType?: string; accept?: string; locale?: string } = {}) {
  const response = await SELF.fetch(new URL(path, "http://api.test").toString(), {
    method,
    headers: {
      "svc-client": caller.role,
      "svc-api-key": caller.key,
      ...(init.contentType && { "content-type": init.contentType }),
      ...(init.accept && { accept: init.accept }),
      ...(init.locale && { locale: init.locale }),
    },
    body: init.body,
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // CSV
  }
  const answer: ApiResponse = { status: response.status, headers: response.headers, text, body };
  return answer;
}

const linesOf = async (op: Caller, operationId: string) =>
  (await collectPages(op, routes.listLines, { params: { operationId }, query: { limit: 1000 } })).items.map(ownLineFields);

async function draft(op: Caller, lines: unknown[] = []) {
  const created = await setUpOperation(op, { status: "DRAFT", lines: [] });
  if (lines.length) expectStatus(await callRoute(op, routes.putLines, { params: { operationId: created.id }, body: lines }), 200);
  return created.id as string;
}

const TRICKY = ['Shirt, "red"', "two\nlines", "=SUM(A1:A9)", "+33 1 23", "-minus", "@handle", "\ttab", "'=quoted", "-5", "plain"];

describe("CSV export (Accept: text/csv)", () => {
  it("streams the whole filtered, sorted list of lines as one CSV, neutralizing what a spreadsheet would run", async () => {
    const op = await newTenant();
    const lines = Array.from({ length: 2300 }, (_, i) => ({
      variantExternalId: `SKU-${String(i).padStart(5, "0")}`,
      variantName: { en: TRICKY[i % TRICKY.length], fr: `Nom ${i}` },
      minQuantity: i % 3,
      maxQuantity: 10 + (i % 4),
      ...(i % 5 === 0 && { recommendedQuantity: 5 }),
    }));
    const operationId = await draft(op, lines);
    const answer = await raw(op, "GET", `/v1/operations/${operationId}/lines`, { accept: "text/csv" });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    const records = answer.text.split("\r\n");
    expect(records[0]).toBe("variantExternalId,variantName,minQuantity,maxQuantity,recommendedQuantity,quantityIncrement");
    expect(records[1]).toBe('SKU-00000,"Shirt, ""red""",0,10,5,1');
    expect(records).toContain("SKU-00002,'=SUM(A1:A9),2,12,,1");
    expect(records).toContain("SKU-00008,-5,2,10,,1");
    expect(records).toContain("SKU-00007,''=quoted,1,13,,1");
    // Every line, in order (one record spans two text lines: the embedded newline).
    expect(answer.text.match(/^SKU-\d{5},/gm)?.length).toBe(2300);
    // Filters and the locale apply as in JSON.
    const filtered = await raw(op, "GET", `/v1/operations/${operationId}/lines?minQuantity=2&sort=-variantExternalId`, { accept: "text/csv", locale: "fr" });
    const rows = filtered.text.trim().split("\r\n").slice(1);
    expect(rows.length).toBe(766);
    expect(rows[0]).toBe("SKU-02297,Nom 2297,2,11,,1");
  });

  it("answers the header alone for an empty list, and when a filter leaves nothing (no hang)", async () => {
    const op = await newTenant();
    const header = "variantExternalId,variantName,minQuantity,maxQuantity,recommendedQuantity,quantityIncrement";
    const empty = await raw(op, "GET", `/v1/operations/${await draft(op)}/lines`, { accept: "text/csv" });
    expect(empty.status).toBe(200);
    expect(empty.text.trim()).toBe(header);
    const operationId = await draft(op, [{ variantExternalId: "SKU-1", variantName: { en: "One" }, minQuantity: 0, maxQuantity: 5 }]);
    const none = await raw(op, "GET", `/v1/operations/${operationId}/lines?minQuantity=3`, { accept: "text/csv" });
    expect(none.text.trim()).toBe(header);
  });

  it("exports attachments and rules; an unknown Operation is still a 404 problem", async () => {
    const op = await newTenant();
    await putAccounts(op, [
      { accountId: "A-1", name: "=Evil, Inc." },
      { accountId: "A-2", name: "Good" },
    ]);
    const operationId = (await setUpOperation(op, { status: "DRAFT", attach: ["A-2", "A-1"] })).id;
    const accounts = await raw(op, "GET", `/v1/operations/${operationId}/accounts`, { accept: "text/csv" });
    const [header, first, second] = accounts.text.split("\r\n");
    expect(header).toBe("accountId,accountName,operationStatus,attachedAt");
    expect(first).toMatch(/^A-1,"'=Evil, Inc\.",NOT_STARTED,20\d\d-/);
    expect(second).toMatch(/^A-2,Good,NOT_STARTED,/);
    expectStatus(
      await callRoute(op, routes.upsertRules, {
        body: [
          { accountId: "A-1", minimum: 5 },
          { supplierId: "S-1", storeId: "ST", minimum: 7 },
        ],
      }),
      200,
    );
    const rules = (await raw(op, "GET", "/v1/buying-policies/quotas/rules?sort=minimum", { accept: "text/csv" })).text.split("\r\n");
    expect(rules[0]).toBe("id,accountId,supplierId,storeId,minimum,enforcement");
    expect(rules[1]).toMatch(/^qr_\w+,A-1,,,5,BLOCK$/);
    expect(rules[2]).toMatch(/^qr_\w+,,S-1,ST,7,BLOCK$/);
    expectProblem(
      await callRoute(op, routes.listLines, { params: { operationId: "op_00000000000000000000000000" }, headers: { accept: "text/csv" } }),
      404,
      "not_found",
    );
  });
});

describe("CSV import (Content-Type: text/csv)", () => {
  it("takes BOM, CRLF or LF, columns in any order, quoted commas, quotes and newlines; an empty cell is an omitted field", async () => {
    const op = await newTenant({ defaultLocale: "en" });
    const operationId = await draft(op, [{ variantExternalId: "KEEP", variantName: { en: "Kept" }, minQuantity: 1, maxQuantity: 9, recommendedQuantity: 3 }]);
    const csv = '\ufeffmaxQuantity,variantExternalId,variantName,minQuantity\r\n5,A,"Shirt, ""blue""\r\nXL",0\r\n7,KEEP,,2\r\n';
    const answer = await raw(op, "PUT", `/v1/operations/${operationId}/lines`, { body: csv, contentType: "text/csv; charset=utf-8" });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toMatchObject({ created: 1, updated: 1, lineCount: 2 });
    expect(await linesOf(op, operationId)).toEqual([
      {
        variantExternalId: "A",
        variantId: null,
        variantName: { en: 'Shirt, "blue"\r\nXL' },
        minQuantity: 0,
        maxQuantity: 5,
        recommendedQuantity: null,
        quantityIncrement: 1,
      },
      { variantExternalId: "KEEP", variantId: null, variantName: { en: "Kept" }, minQuantity: 2, maxQuantity: 7, recommendedQuantity: 3, quantityIncrement: 1 },
    ]);
    // LF line ends, and the name stored under the locale header's language.
    const lf = await raw(op, "PUT", `/v1/operations/${operationId}/lines`, {
      body: "variantExternalId,variantName\nA,Chemise\n",
      contentType: "text/csv",
      locale: "fr",
    });
    expect(lf.status, lf.text).toBe(200);
    expect((await linesOf(op, operationId))[0].variantName).toEqual({ en: 'Shirt, "blue"\r\nXL', fr: "Chemise" });
    // Attach by CSV, and rules in bulk by CSV.
    await putAccounts(op, [{ accountId: "A-1" }, { accountId: "A-2" }]);
    const privateDraft = (await setUpOperation(op, { status: "DRAFT" })).id;
    expect((await raw(op, "POST", `/v1/operations/${privateDraft}/accounts`, { body: "accountId\nA-2\nA-1\n", contentType: "text/csv" })).body).toMatchObject({
      attached: 2,
    });
    expect(
      (await raw(op, "PUT", "/v1/buying-policies/quotas/rules", { body: "supplierId,minimum,accountId\n,40,A-1\nS-9,50,\n", contentType: "text/csv" })).body,
    ).toEqual({ created: 2, updated: 0, unchanged: 0 });
  });

  it("answers 400 with the row for malformed CSV, a bad header and wrong types, 422 with the row for bad bounds; nothing changes", async () => {
    const op = await newTenant();
    const operationId = await draft(op, [{ variantExternalId: "A", minQuantity: 0, maxQuantity: 5 }]);
    const before = await linesOf(op, operationId);
    // Each of these is refused: its body is a problem (asserted as one) with errors naming the rows.
    const put = async (body: string) => {
      const answer = await raw(op, "PUT", `/v1/operations/${operationId}/lines`, { body, contentType: "text/csv" });
      return { status: answer.status, body: expectCleanProblem(answer) };
    };

    const unbalanced = await put('variantExternalId,maxQuantity\nB,3\nC,"4\n');
    expect(unbalanced.status).toBe(400);
    expect(unbalanced.body.errors?.[0]).toMatchObject({ code: "invalid_csv", row: expect.any(Number) });
    const unknown = await put("variantExternalId,colour\nB,red\n");
    expect(unknown.body.errors).toEqual([expect.objectContaining({ code: "unknown_column", row: 1 })]);
    const missing = await put("maxQuantity\n3\n");
    expect(missing.body.errors).toEqual([expect.objectContaining({ code: "missing_column", row: 1 })]);
    const empty = await put("");
    expect(empty.body.errors).toEqual([expect.objectContaining({ code: "missing_header", row: 1 })]);
    // Row numbers count the file's lines: a quoted newline in row 2 puts the next record on row 4.
    const types = await put('variantExternalId,variantName,minQuantity,maxQuantity\nB,"two\nlines",0,4\nC,x,abc,4\n');
    expect(types.status).toBe(400);
    expect(types.body.errors).toEqual([expect.objectContaining({ field: "body.1.minQuantity", index: 1, row: 4 })]);
    const bounds = await put("variantExternalId,minQuantity,maxQuantity\nB,1,2\nC,9,4\n");
    expect(bounds.status).toBe(422);
    expect(bounds.body.code).toBe("line_bounds_invalid");
    expect(bounds.body.errors?.[0]).toMatchObject({ index: 1, variantExternalId: "C", row: 3 });
    expect((await put("variantExternalId,minQuantity,maxQuantity\nB,1,2\nB,1,3\n")).body.errors).toEqual([
      expect.objectContaining({ code: "duplicate_key", row: 3 }),
    ]);
    expect((await raw(op, "PUT", `/v1/operations/${operationId}/lines`, { body: "x", contentType: "text/plain" })).status).toBe(415);
    expect(await linesOf(op, operationId)).toEqual(before);
  });

  it("a CSV exported by the service imports back unchanged: lines, attachments and rules (random texts, formula-like ones included)", async () => {
    const text = fc
      .oneof(fc.string({ minLength: 1, maxLength: 12 }), fc.constantFrom(...TRICKY))
      .filter((value) => value.trim().length > 0 && !value.includes("\u0000"));
    await fc.assert(
      fc.asyncProperty(fc.array(text, { minLength: 1, maxLength: 6 }), async (names) => {
        const op = await newTenant();
        const lines = names.map((name, i) => ({
          variantExternalId: `SKU-${i}`,
          variantName: { en: name, fr: `Nom ${i}` },
          minQuantity: i,
          maxQuantity: i + 2,
        }));
        const operationId = await draft(op, lines);
        const before = await linesOf(op, operationId);
        const exported = await raw(op, "GET", `/v1/operations/${operationId}/lines`, { accept: "text/csv" });
        const imported = await raw(op, "PUT", `/v1/operations/${operationId}/lines`, { body: exported.text, contentType: "text/csv" });
        expect(imported.status, imported.text).toBe(200);
        expect(imported.body).toMatchObject({ created: 0, lineCount: names.length });
        expect(await linesOf(op, operationId)).toEqual(before);
      }),
      { numRuns: 10 },
    );

    const op = await newTenant();
    await putAccounts(op, [
      { accountId: "A-1", name: "=x" },
      { accountId: "A-2", name: "y" },
    ]);
    const from = (await setUpOperation(op, { status: "DRAFT", attach: ["A-1", "A-2"] })).id;
    const to = (await setUpOperation(op, { status: "DRAFT" })).id;
    const attachments = await raw(op, "GET", `/v1/operations/${from}/accounts`, { accept: "text/csv" });
    expect((await raw(op, "PUT", `/v1/operations/${to}/accounts`, { body: attachments.text, contentType: "text/csv" })).body).toMatchObject({ attached: 2 });
    expectStatus(
      await callRoute(op, routes.upsertRules, {
        body: [
          { accountId: "A-1", minimum: 5 },
          { accountId: "-A", supplierId: "=S", minimum: 7 },
        ],
      }),
      200,
    );
    const rules = await raw(op, "GET", "/v1/buying-policies/quotas/rules", { accept: "text/csv" });
    expect((await raw(op, "PUT", "/v1/buying-policies/quotas/rules", { body: rules.text, contentType: "text/csv" })).body).toEqual({
      created: 0,
      updated: 0,
      unchanged: 2,
    });
  });

  it("a name the export showed by the fallback (another language's, or none) imports back unchanged, in any locale", async () => {
    const op = await newTenant();
    const lines = [
      { variantExternalId: "FR-ONLY", variantName: { fr: "Veste" }, minQuantity: 0, maxQuantity: 2 },
      { variantExternalId: "UNNAMED", minQuantity: 0, maxQuantity: 2 },
      { variantExternalId: "BOTH", variantName: { en: "Jacket", fr: "Veste" }, minQuantity: 0, maxQuantity: 2 },
    ];
    const operationId = await draft(op, lines);
    const before = await linesOf(op, operationId);
    for (const locale of [undefined, "de", "fr"]) {
      const exported = await raw(op, "GET", `/v1/operations/${operationId}/lines`, { accept: "text/csv", locale });
      const imported = await raw(op, "PUT", `/v1/operations/${operationId}/lines`, { body: exported.text, contentType: "text/csv", locale });
      expect(imported.status, imported.text).toBe(200);
      expect(imported.body).toMatchObject({ created: 0 });
      expect(await linesOf(op, operationId), `locale ${locale}`).toEqual(before);
    }
    // Imported back unchanged, no line changed: its history holds only its creation.
    const lineHistory = async () =>
      (await collectPages(op, routes.listHistory, { query: { resourceType: "line", resourceId: "FR-ONLY" } })).items.map(({ action, changes }) => ({
        action,
        names: changes.filter((change) => change.field === "variantName"),
      }));
    expect(await lineHistory()).toEqual([{ action: "created", names: [{ field: "variantName", next: { fr: "Veste" } }] }]);
    // A name typed over the one shown is that language's: a dry run records nothing, the import one change.
    const renamed = "variantExternalId,variantName\nFR-ONLY,Jacke\n";
    const rename = (query: string) => raw(op, "PUT", `/v1/operations/${operationId}/lines${query}`, { body: renamed, contentType: "text/csv", locale: "de" });
    expect((await rename("?dryRun=true")).status).toBe(200);
    expect(await lineHistory()).toHaveLength(1);
    expect((await rename("")).status).toBe(200);
    expect((await linesOf(op, operationId)).find((line) => line.variantExternalId === "FR-ONLY")?.variantName).toEqual({ fr: "Veste", de: "Jacke" });
    expect((await lineHistory())[0]).toEqual({
      action: "updated",
      names: [{ field: "variantName", previous: { fr: "Veste" }, next: { fr: "Veste", de: "Jacke" } }],
    });
  });

  it("dry runs take CSV too", async () => {
    const op = await newTenant();
    const operationId = await draft(op);
    const dry = await raw(op, "PUT", `/v1/operations/${operationId}/lines?dryRun=true`, {
      body: "variantExternalId,minQuantity,maxQuantity\nA,0,1\n",
      contentType: "text/csv",
    });
    expect(dry.body).toMatchObject({ created: 1, lineCount: 1 });
    expect(dry.headers.get("svc-dry-run")).toBe("true");
    expect(await linesOf(op, operationId)).toEqual([]);
  });

  it("keeps the JSON limits (413 above 5000 rows) and is declared in the OpenAPI document", async () => {
    const op = await newTenant();
    const operationId = await draft(op);
    const tooMany = ["variantExternalId,minQuantity,maxQuantity", ...Array.from({ length: 5001 }, (_, i) => `S${i},0,1`)].join("\n");
    expectProblem(
      await call(op, "PUT", `/v1/operations/${operationId}/lines`, { rawBody: tooMany, headers: { "content-type": "text/csv" } }),
      413,
      "batch_too_large",
    );
    const doc = await servedDocument();
    for (const [path, method] of [
      ["/v1/operations/{operationId}/lines", "put"],
      ["/v1/operations/{operationId}/accounts", "post"],
      ["/v1/buying-policies/quotas/rules", "put"],
    ]) {
      expect(Object.keys(doc.paths[path][method].requestBody.content), `${method} ${path}`).toEqual(["application/json", "text/csv"]);
      expect(
        doc.paths[path][method].parameters.map((p: { name: string }) => p.name),
        `${method} ${path}`,
      ).toContain("dryRun");
    }
    for (const path of ["/v1/operations/{operationId}/lines", "/v1/operations/{operationId}/accounts", "/v1/buying-policies/quotas/rules"]) {
      expect(Object.keys(doc.paths[path].get.responses["200"].content), path).toEqual(["application/json", "text/csv"]);
    }
  });
});
