// The Operations the list tests query, and the orders and filter results expected of them,
// computed here from the data (not by the code under test).
import { expect } from "vitest";
import { collectPages, expectStatus, newTenant, setStatus, type Caller, callRoute } from "../helpers/client";
import { routes } from "../helpers/routes";
import { addLineDirectly } from "../helpers/direct";

export interface Op {
  id: string;
  code: string;
  externalId: string | null;
  name: Record<string, string>;
  type: "PUBLIC" | "PRIVATE";
  status: "DRAFT" | "ACTIVE" | "INACTIVE";
  startDate: string;
  endDate: string;
  ownerIds: string[];
  createdAt: string;
}

// Tenant default locale is `en`. Names mix cases, accents, LIKE wildcards and missing locales.
export const SEED: (Partial<Op> & { code: string; name: Record<string, string>; status: Op["status"] })[] = [
  {
    code: "C-alpha",
    externalId: "x1",
    name: { en: "Spring Sale", fr: "Soldes de printemps" },
    type: "PUBLIC",
    status: "DRAFT",
    startDate: "2027-03-01T00:00:00Z",
    endDate: "2027-04-30T23:59:59Z",
    ownerIds: ["u1"],
  },
  {
    code: "C-bravo",
    externalId: "x2",
    name: { en: "summer ÉTÉ", fr: "Été ensoleillé" },
    type: "PRIVATE",
    status: "ACTIVE",
    startDate: "2027-06-01T00:00:00Z",
    endDate: "2027-08-31T23:59:59Z",
    ownerIds: ["u2"],
  },
  {
    code: "c-charlie",
    externalId: null,
    name: { en: "100%_off" },
    type: "PRIVATE",
    status: "INACTIVE",
    startDate: "2027-03-01T00:00:00Z",
    endDate: "2027-03-31T00:00:00Z",
    ownerIds: [],
  },
  {
    code: "D-delta",
    externalId: "x4",
    name: { fr: "Automne", de: "Herbst" },
    type: "PUBLIC",
    status: "ACTIVE",
    startDate: "2026-09-01T00:00:00Z",
    endDate: "2026-11-30T00:00:00Z",
    ownerIds: ["u1", "u3"],
  },
  {
    code: "E-echo",
    externalId: "X1",
    name: { en: "Winter", fr: "Hiver" },
    type: "PRIVATE",
    status: "DRAFT",
    startDate: "2027-12-01T00:00:00Z",
    endDate: "2028-02-28T00:00:00Z",
    ownerIds: [],
  },
  {
    code: "F-foxtrot",
    externalId: "x6",
    name: { en: "spring clearance", es: "Liquidación" },
    type: "PUBLIC",
    status: "INACTIVE",
    startDate: "2027-03-15T00:00:00Z",
    endDate: "2027-04-30T23:59:59Z",
    ownerIds: ["u3"],
  },
  {
    code: "G-golf",
    externalId: "x7",
    name: { en: "Über Deals", de: "ÜBER ANGEBOTE" },
    type: "PRIVATE",
    status: "DRAFT",
    startDate: "2027-01-01T00:00:00Z",
    endDate: "2027-01-31T00:00:00Z",
    ownerIds: ["u4"],
  },
  {
    code: "H-hotel",
    externalId: "x8",
    name: { en: "Spring Sale", fr: "éa" },
    type: "PUBLIC",
    status: "ACTIVE",
    startDate: "2027-02-28T23:59:59Z",
    endDate: "2027-03-01T00:00:00Z",
    ownerIds: ["u1"],
  },
  {
    code: "I-india",
    externalId: "x9",
    name: { en: "a_b", fr: "Éz" },
    type: "PRIVATE",
    status: "DRAFT",
    startDate: "2027-03-01T00:00:01Z",
    endDate: "2027-04-30T23:59:58Z",
    ownerIds: ["u2", "u4"],
  },
  {
    code: "J-juliet",
    externalId: "x10",
    name: { en: "ZEBRA", fr: "zèbre" },
    type: "PUBLIC",
    status: "DRAFT",
    startDate: "2028-01-01T00:00:00Z",
    endDate: "2028-01-01T00:00:00Z",
    ownerIds: ["u5"],
  },
];

/** A tenant (default locale en) holding SEED, each Operation brought to its status; returns it as read back. */
export async function seedOperations(): Promise<{ op: Caller; data: Op[] }> {
  const op = await newTenant({ defaultLocale: "en" });
  const created: Op[] = [];
  for (const seed of SEED) {
    const { status, ...body } = seed;
    const res = await callRoute(op, routes.createOperation, {
      body: { type: "PUBLIC", startDate: "2027-01-01T00:00:00Z", endDate: "2027-12-31T00:00:00Z", ...body },
    });
    const operation = expectStatus(res, 201);
    if (status !== "DRAFT") {
      await addLineDirectly(op.tenantId, operation.id);
      expectStatus(await setStatus(op, operation.id, status), 200);
    }
    created.push(operation);
  }
  const data: Op[] = [];
  for (const operation of created) data.push(expectStatus(await callRoute(op, routes.getOperation, { params: { operationId: operation.id } }), 200));
  return { op, data };
}

// ---- the expected results, computed from the data --------------------------------------

export const lower = (s: string) => s.toLowerCase();

/** The name a list sorts by: the locale asked for, else the tenant default (en), else the first locale by tag. */
function nameKey(o: Op, locale?: string): string {
  if (locale) return lower(o.name[locale] ?? "");
  const value = o.name.en ?? o.name[Object.keys(o.name).sort()[0]] ?? "";
  return lower(value);
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function expectedOrder(items: Op[], sort: string, locale?: string): string[] {
  const keys = sort.split(",").map((part) => ({ field: part.replace(/^-/, ""), desc: part.startsWith("-") }));
  const value = (o: Op, field: string) => (field === "name" ? nameKey(o, locale) : String(o[field as keyof Op]));
  const lastDesc = keys[keys.length - 1].desc;
  return [...items]
    .sort((a, b) => {
      for (const { field, desc } of keys) {
        const c = cmp(value(a, field), value(b, field));
        if (c) return desc ? -c : c;
      }
      // The id closes the order, in the direction of the last key.
      return lastDesc ? -cmp(a.id, b.id) : cmp(a.id, b.id);
    })
    .map((o) => o.id);
}

/** Walks the list page by page (asserting no duplicates and the page count) and returns the ids in order. */
export async function listIds(op: Caller, query: Record<string, string | number>, limit = 3) {
  const { items, pages } = await collectPages<Op>(op, "/v1/operations", { ...query, limit });
  const ids = items.map((o) => o.id);
  expect(new Set(ids).size, "no duplicates across pages").toBe(ids.length);
  expect(pages).toBe(Math.max(1, Math.ceil(ids.length / limit)));
  return ids;
}

export async function expectFilter(op: Caller, data: Op[], query: Record<string, string>, predicate: (o: Op) => boolean) {
  const expected = expectedOrder(data.filter(predicate), "-createdAt");
  const ids = await listIds(op, query);
  expect(ids, JSON.stringify(query)).toEqual(expected);
  return ids;
}
