import { describe, expect, it } from "vitest";
import { type Caller, callRoute, collectPages, createOperation, expectProblem, expectStatus, newTenant, type ResponseOf } from "../helpers/client";
import { routes } from "../helpers/routes";
import { tenantDb } from "../helpers/shards";

async function seed(op: Caller, count: number) {
  const created: ResponseOf<typeof routes.createOperation>[] = [];
  for (let i = 0; i < count; i++) {
    created.push(
      await createOperation(op, {
        code: `P-${String(i).padStart(3, "0")}`,
        name: { en: `Name ${String.fromCharCode(65 + (i % 26))}${i % 3}` },
        startDate: `2027-0${1 + (i % 9)}-01T00:00:00Z`,
        endDate: "2027-12-31T00:00:00Z",
      }),
    );
  }
  return created;
}

async function page(op: Caller, query: Record<string, string | number | undefined>) {
  return expectStatus(await callRoute(op, routes.listOperations, { query }), 200);
}

describe("keyset pagination", () => {
  it("walks every page without duplicates or gaps, each page within limit", async () => {
    const op = await newTenant();
    const created = await seed(op, 23);
    for (const [sort, limits] of [
      [undefined, [1, 23, 50]],
      ["name", [5]],
      ["-startDate", [4]],
      ["code", [6]],
      ["status,-name", [5]],
    ] as const) {
      for (const limit of limits) {
        const { items, pages } = await collectPages(op, routes.listOperations, { query: { sort, limit } });
        expect(items.map((o) => o.id).sort()).toEqual(created.map((o) => o.id).sort());
        expect(pages).toBe(Math.ceil(23 / limit));
      }
    }
    const first = await page(op, { limit: 10 });
    expect(first.items).toHaveLength(10);
    expect(typeof first.nextToken).toBe("string");
    const last = await page(op, { limit: 50 });
    expect(last.nextToken).toBeNull();
  });

  it("stays correct while rows are inserted and deleted between pages", async () => {
    for (const sort of [undefined, "name", "-startDate,code"]) {
      const op = await newTenant();
      const created = await seed(op, 12);
      const deleted = new Set<string>();
      const inserted = new Set<string>();
      const seen: string[] = [];
      let nextToken: string | undefined;
      let round = 0;
      do {
        const result = await page(op, { limit: 4, sort, ids: undefined, nextToken });
        seen.push(...result.items.map((o) => o.id));
        nextToken = result.nextToken ?? undefined;
        round++;
        // Between pages: delete one row already seen and one not yet seen, and insert a row.
        const unseen = created.filter((o) => !seen.includes(o.id) && !deleted.has(o.id));
        const seenAlive = created.filter((o) => seen.includes(o.id) && !deleted.has(o.id));
        for (const victim of [unseen[unseen.length - 1], seenAlive[0]]) {
          if (!victim) continue;
          expectStatus(await callRoute(op, routes.deleteOperation, { params: { operationId: victim.id } }), 204);
          deleted.add(victim.id);
        }
        const fresh = await createOperation(op, { code: `NEW-${sort}-${round}`, name: { en: `Name M${round}` } });
        inserted.add(fresh.id);
      } while (nextToken && round < 50);

      expect(new Set(seen).size, "no row shown twice").toBe(seen.length);
      const throughout = created.filter((o) => !deleted.has(o.id));
      for (const o of throughout) expect(seen, `${o.code} existed throughout (sort ${sort})`).toContain(o.id);
      for (const id of seen) expect(created.some((o) => o.id === id) || inserted.has(id)).toBe(true);
    }
  });

  it("serves 50 per page by default and up to 500 on request", async () => {
    const op = await newTenant();
    const now = Date.now();
    // Rows written straight to D1: the page size is what is under test, not creation.
    const db = await tenantDb(op.tenantId);
    await db.batch(
      Array.from({ length: 501 }, (_, i) =>
        db
          .prepare(
            `insert into operations (id, tenant_id, code, name, name_folded, name_search, name_sort, type, status, start_date, end_date, created_at, updated_at)
           values (?, ?, ?, '{"en":"Bulk"}', '{"en":"bulk"}', 'bulk', 'bulk', 'PUBLIC', 'DRAFT', '2027-01-01T00:00:00Z', '2027-02-01T00:00:00Z', ?, ?)`,
          )
          .bind(`op_bulk${String(i).padStart(4, "0")}`, op.tenantId, `BULK-${i}`, new Date(now + i).toISOString(), new Date(now + i).toISOString()),
      ),
    );
    const first = await page(op, {});
    expect(first.items).toHaveLength(50);
    expect(first.items[0].code).toBe("BULK-500");
    expect(first.nextToken).toBeTruthy();
    const big = await page(op, { limit: 500 });
    expect(big.items).toHaveLength(500);
    const rest = await page(op, { limit: 500, nextToken: big.nextToken! });
    expect(rest.items.map((o) => o.code)).toEqual(["BULK-0"]);
    expect(rest.nextToken).toBeNull();
  });

  it("stays correct when the row a token points at is deleted", async () => {
    const op = await newTenant();
    const created = await seed(op, 6);
    const first = await page(op, { limit: 3, sort: "code" });
    expect(first.items.map((o) => o.code)).toEqual(["P-000", "P-001", "P-002"]);
    expectStatus(await callRoute(op, routes.deleteOperation, { params: { operationId: created[2].id } }), 204);
    const second = await page(op, { limit: 3, sort: "code", nextToken: first.nextToken! });
    expect(second.items.map((o) => o.code)).toEqual(["P-003", "P-004", "P-005"]);
    expect(second.nextToken).toBeNull();
  });

  it("answers 400 invalid_next_token for a token used with other filters or sort, or tampered", async () => {
    const op = await newTenant();
    await seed(op, 6);
    const first = await page(op, { limit: 2, sort: "name", status: "DRAFT" });
    const token = first.nextToken!;
    expect(token).toBeTruthy();
    // The same filters and sort accept it (limit may change).
    expectStatus(await callRoute(op, routes.listOperations, { query: { limit: 3, sort: "name", status: "DRAFT", nextToken: token } }), 200);

    const mismatches: Record<string, string | number>[] = [
      { limit: 2, sort: "-name", status: "DRAFT" },
      { limit: 2, sort: "code", status: "DRAFT" },
      { limit: 2, status: "DRAFT" },
      { limit: 2, sort: "name" },
      { limit: 2, sort: "name", status: "DRAFT,ACTIVE" },
      { limit: 2, sort: "name", status: "DRAFT", type: "PRIVATE" },
      { limit: 2, sort: "name", status: "DRAFT", name: "name" },
      { limit: 2, sort: "name", status: "DRAFT", locale: "en" },
      { limit: 2, sort: "name", status: "DRAFT", ids: "P-000", idType: "code" },
      { limit: 2, sort: "name", status: "DRAFT", startDateFrom: "2027-01-01T00:00:00Z" },
    ];
    for (const query of mismatches) {
      expectProblem(await callRoute(op, routes.listOperations, { query: { ...query, nextToken: token } }), 400, "invalid_next_token");
    }

    const [body, signature] = token.split(".");
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === "A" ? "B" : "A") + s.slice(i + 1);
    const forged = btoa(JSON.stringify({ k: ["", "op_0"], b: "x" })).replace(/=+$/, "");
    for (const tampered of [
      `${flip(body, 3)}.${signature}`,
      `${body}.${flip(signature, 0)}`,
      `${body}.`,
      body,
      `${body}.${signature}.extra`,
      `${forged}.${signature}`,
      "not-a-token",
      "....",
      "%%%",
      "eyJrIjpbXX0.AAAAAAAAAAAAAAAAAAAAAA",
    ]) {
      expectProblem(
        await callRoute(op, routes.listOperations, { query: { limit: 2, sort: "name", status: "DRAFT", nextToken: tampered } }),
        400,
        "invalid_next_token",
      );
    }
    // A token of another list (events) does not open this one.
    const events = expectStatus(await callRoute(op, routes.listEvents, { query: { limit: 1 } }), 200);
    expectProblem(await callRoute(op, routes.listOperations, { query: { limit: 1, nextToken: events.nextToken } }), 400, "invalid_next_token");
  });
});
