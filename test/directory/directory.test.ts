import { describe, expect, it } from "vitest";
import { callRoute, collectPages, expectProblem, expectStatus, issueKey, newTenant } from "../helpers/client";
import { putDirectory } from "../helpers/setup";
import { accountId, makeAccounts } from "../helpers/accounts";
import { routes } from "../helpers/routes";

const ids = (items: { accountId: string }[]) => items.map((item) => item.accountId);

describe("PUT /v1/accounts", () => {
  it("creates, then updates, with counts; users replace the account's users", async () => {
    const op = await newTenant();
    expect(await putDirectory(op, makeAccounts(3))).toEqual({ created: 3, updated: 0 });
    expect(
      await putDirectory(op, [
        { accountId: accountId(0), name: "Renamed Zero", users: [{ userId: "u_new", email: "New@Example.test" }] },
        ...makeAccounts(2, () => ({}), 3),
      ]),
    ).toEqual({ created: 2, updated: 1 });

    const { items } = await collectPages(op, routes.listDirectory);
    expect(ids(items)).toEqual([0, 1, 2, 3, 4].map(accountId));
    expect(items[0]).toEqual({
      accountId: accountId(0),
      name: "Renamed Zero",
      users: [{ userId: "u_new", email: "New@Example.test" }],
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(items[0].updatedAt > items[0].createdAt).toBe(true);
    // The replaced users no longer match their filters; the new one does.
    expect(ids((await collectPages(op, routes.listDirectory, { query: { userId: "u_0" } })).items)).toEqual([]);
    expect(ids((await collectPages(op, routes.listDirectory, { query: { userId: "u_new" } })).items)).toEqual([accountId(0)]);
    expect(ids((await collectPages(op, routes.listDirectory, { query: { userId: "u_shared" } })).items)).toEqual([accountId(3)]);
    // users omitted means none.
    await putDirectory(op, [{ accountId: accountId(3), name: "No users" }]);
    expect((await collectPages(op, routes.listDirectory, { query: { accountIds: accountId(3) } })).items[0].users).toEqual([]);
    expect(ids((await collectPages(op, routes.listDirectory, { query: { userId: "u_shared" } })).items)).toEqual([]);
  });

  it("records directory.upserted with its counts", async () => {
    const op = await newTenant();
    await putDirectory(op, makeAccounts(4));
    await putDirectory(op, makeAccounts(6));
    const events = expectStatus(await callRoute(op, routes.listEvents, { query: { types: "directory.upserted" } }), 200).items;
    expect(events.map((event) => event.data)).toEqual([
      { created: 4, updated: 0, users: 6 },
      { created: 2, updated: 4, users: 8 },
    ]);
  });

  it("takes 5000 accounts in one call and refuses 5001 with 413", async () => {
    const op = await newTenant();
    expect(await putDirectory(op, makeAccounts(5000))).toEqual({ created: 0 + 5000, updated: 0 });
    expect((await collectPages(op, routes.listDirectory, { query: { limit: 1000 } })).items.length).toBe(5000);
    expectProblem(await callRoute(op, routes.putDirectory, { body: makeAccounts(5001) }), 413, "batch_too_large");
    expectProblem(await callRoute(op, routes.putDirectory, { body: Array.from({ length: 5001 }, () => ({ bad: true })) }), 413, "batch_too_large");
  });

  it("rejects bad shapes, empty batches and repeated keys with 400, writing nothing", async () => {
    const op = await newTenant();
    expectProblem(await callRoute(op, routes.putDirectory, { body: [] }), 400, "validation_failed");
    for (const body of [
      [{ accountId: "A", name: "" }],
      [{ accountId: "A" }],
      [{ name: "no id" }],
      [{ accountId: "A", name: "x", users: [{ userId: "u", email: "not-an-email" }] }],
      [{ accountId: "A", name: "x", users: [{ userId: "u" }] }],
      [{ accountId: "A", name: "x", extra: 1 }],
    ]) {
      expectProblem(await callRoute(op, routes.putDirectory, { body }), 400, "validation_failed");
    }
    const repeated = expectProblem(await callRoute(op, routes.putDirectory, { body: [...makeAccounts(2), makeAccounts(1)[0]] }), 400, "validation_failed");
    expect(repeated.errors).toEqual([expect.objectContaining({ index: 2, code: "duplicate_key", field: "body.2.accountId" })]);
    const repeatedUser = expectProblem(
      await callRoute(op, routes.putDirectory, {
        body: [
          {
            accountId: "A",
            name: "x",
            users: [
              { userId: "u", email: "a@x.test" },
              { userId: "u", email: "b@x.test" },
            ],
          },
        ],
      }),
      400,
      "validation_failed",
    );
    expect(repeatedUser.errors).toEqual([expect.objectContaining({ index: 0, code: "duplicate_key", field: "body.0.users.1.userId" })]);
    expect((await collectPages(op, routes.listDirectory)).items).toEqual([]);
  });

  it("is OPERATOR-only", async () => {
    const op = await newTenant();
    const buyer = await issueKey(op.tenantId, "ACCOUNT", "u_1");
    expectProblem(await callRoute(buyer, routes.putDirectory, { body: makeAccounts(1) }), 403, "forbidden");
  });
});

describe("GET /v1/accounts", () => {
  it("filters by accountIds (alias accountId), name, userId and email, and sorts by name", async () => {
    const op = await newTenant();
    const accounts = makeAccounts(30);
    await putDirectory(op, accounts);
    const list = async (query: Record<string, string | number>) => ids((await collectPages(op, routes.listDirectory, { query: { limit: 4, ...query } })).items);

    expect(await list({ accountIds: `${accountId(3)},${accountId(9)},nope` })).toEqual([accountId(3), accountId(9)]);
    expect(await list({ accountId: accountId(4) })).toEqual([accountId(4)]);
    expect(await list({ name: "gAmMa" })).toEqual(ids(accounts.filter((a) => a.name.toLowerCase().includes("gamma"))));
    expect(await list({ name: "count 1" })).toEqual(ids(accounts.filter((a) => a.name.includes("count 1"))));
    expect(await list({ userId: "u_shared" })).toEqual(ids(accounts.filter((_, i) => i % 3 === 0)));
    expect(await list({ email: "USER7@example.TEST" })).toEqual([accountId(7)]);
    expect(await list({ email: "user7@example" })).toEqual([]);
    expect(await list({ userId: "u_shared", name: "alpha" })).toEqual(ids(accounts.filter((a, i) => i % 3 === 0 && a.name.includes("Alpha"))));

    const byName = [...accounts].sort((a, b) => (a.name.toLowerCase() < b.name.toLowerCase() ? -1 : 1));
    expect(await list({ sort: "name" })).toEqual(ids(byName));
    expect(await list({ sort: "-name" })).toEqual(ids(byName).reverse());
    expect(await list({ sort: "-accountId" })).toEqual(ids(accounts).reverse());
    expectProblem(await callRoute(op, routes.listDirectory, { query: { sort: "email" } }), 400, "validation_failed");
    expectProblem(await callRoute(op, routes.listDirectory, { query: { limit: 1001 } }), 400, "validation_failed");
  });

  it("shows an ACCOUNT key only the accounts it is a user of, and never another tenant's", async () => {
    const op = await newTenant();
    await putDirectory(op, makeAccounts(9));
    const shared = await issueKey(op.tenantId, "ACCOUNT", "u_shared");
    expect(ids((await collectPages(shared, routes.listDirectory)).items)).toEqual([0, 3, 6].map(accountId));
    expect(ids((await collectPages(shared, routes.listDirectory, { query: { accountIds: `${accountId(1)},${accountId(3)}` } })).items)).toEqual([accountId(3)]);

    const other = await newTenant();
    expect((await collectPages(other, routes.listDirectory)).items).toEqual([]);
    await putDirectory(other, makeAccounts(1));
    expect((await collectPages(other, routes.listDirectory)).items.map((a) => a.name)).toEqual(["Account 0 Alpha"]);
    expect((await collectPages(op, routes.listDirectory)).items.length).toBe(9);
  });
});
