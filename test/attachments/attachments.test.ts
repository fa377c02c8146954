import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { listAttachments } from "../../src/attachments/queries";
import { listAttachmentsQuery } from "../../src/attachments/schemas";
import {
  call,
  callRoute,
  collectPages,
  createOperation,
  expectProblem,
  expectStatus,
  issueKey,
  newTenant,
  readOperation,
  type ItemOf,
} from "../helpers/client";
import { queryPlan, recordingDb, testPrincipal } from "../helpers/recording-db";
import { putDirectory } from "../helpers/setup";
import { accountId, attach, makeAccounts } from "../helpers/accounts";
import { routes } from "../helpers/routes";
import { tenantDb } from "../helpers/shards";

const accountsPath = (operationId: string) => `/v1/operations/${operationId}/accounts`;
type Attachment = ItemOf<typeof routes.listAttachments>;
const ids = (items: { accountId: string }[]) => items.map((item) => item.accountId);

async function setup(count = 12) {
  const op = await newTenant();
  const accounts = makeAccounts(count);
  await putDirectory(op, accounts);
  const operation = await createOperation(op, { type: "PRIVATE" });
  return { op, accounts, operation };
}

describe("attach and detach at full scale", () => {
  it("attaches 1500 accounts, lists them all, and counts repeats as already attached", async () => {
    const { op, operation } = await setup(1600);
    const wanted = Array.from({ length: 1500 }, (_, i) => accountId(i));
    expect(await attach(op, operation.id, wanted)).toEqual({ attached: 1500, alreadyAttached: 0, accountCount: 1500 });
    const after = await readOperation(op, operation.id);
    expect(after.accountCount).toBe(1500);
    expect(after.version).toBe(operation.version + 1);

    const { items, pages } = await collectPages(op, routes.listAttachments, { params: { operationId: operation.id }, query: { limit: 1000 } });
    expect(pages).toBe(2);
    expect(ids(items)).toEqual(wanted);
    expect(items[3]).toEqual({
      accountId: accountId(3),
      accountName: "Account 3 Alpha",
      users: [
        { userId: "u_3", email: "User3@Example.test" },
        { userId: "u_shared", email: "shared@example.test" },
      ],
      operationStatus: "NOT_STARTED",
      attachedAt: expect.any(String),
      attachedBy: expect.stringMatching(/^key:/),
    });

    // Idempotent: attaching again (with repeats and 100 new ones) attaches only the new ones.
    const again = [...wanted, wanted[0], ...Array.from({ length: 100 }, (_, i) => accountId(1500 + i))];
    expect(await attach(op, operation.id, again)).toEqual({ attached: 100, alreadyAttached: 1500, accountCount: 1600 });
    expect(await attach(op, operation.id, wanted.slice(0, 10))).toEqual({ attached: 0, alreadyAttached: 10, accountCount: 1600 });
    expect((await readOperation(op, operation.id)).version).toBe(operation.version + 2);

    const detached = expectStatus(
      await callRoute(op, routes.detachAccounts, { params: { operationId: operation.id }, body: [...wanted.slice(0, 600), "NOT-THERE", wanted[0]] }),
      200,
    );
    expect(detached).toEqual({ detached: 600, notAttached: ["NOT-THERE"], accountCount: 1000 });
    const again2 = expectStatus(await callRoute(op, routes.detachAccounts, { params: { operationId: operation.id }, body: wanted.slice(0, 2) }), 200);
    expect(again2).toEqual({ detached: 0, notAttached: wanted.slice(0, 2), accountCount: 1000 });
    const final = await readOperation(op, operation.id);
    expect(final.accountCount).toBe(1000);
    expect(final.version).toBe(operation.version + 3);
    expect((await collectPages(op, routes.listAttachments, { params: { operationId: operation.id }, query: { limit: 1000 } })).items.length).toBe(1000);
  });

  it("POST attaches like PUT", async () => {
    const { op, operation } = await setup(3);
    const response = await callRoute(op, routes.attachAccountsByPost, { params: { operationId: operation.id }, body: [accountId(1)] });
    expect(expectStatus(response, 200)).toEqual({ attached: 1, alreadyAttached: 0, accountCount: 1 });
  });

  it("records accounts.attached and accounts.detached with counts", async () => {
    const { op, operation } = await setup(5);
    await attach(op, operation.id, [accountId(0), accountId(1), accountId(2)]);
    await attach(op, operation.id, [accountId(2), accountId(3)]);
    expectStatus(await callRoute(op, routes.detachAccounts, { params: { operationId: operation.id }, body: [accountId(0), accountId(4)] }), 200);
    const events = expectStatus(
      await callRoute(op, routes.listEvents, { query: { operationId: operation.id, types: "accounts.attached,accounts.detached" } }),
      200,
    ).items;
    expect(events.map((event) => [event.type, event.data])).toEqual([
      ["accounts.attached", { attached: 3, alreadyAttached: 0, accountCount: 3 }],
      ["accounts.attached", { attached: 1, alreadyAttached: 1, accountCount: 4 }],
      ["accounts.detached", { detached: 1, notAttached: 1, accountCount: 3 }],
    ]);
  });
});

describe("rules and their order", () => {
  it("refuses unknown accounts with 422 listing them, attaching nothing", async () => {
    const { op, operation } = await setup(3);
    const problem = expectProblem(
      await callRoute(op, routes.attachAccounts, { params: { operationId: operation.id }, body: [accountId(0), "GHOST-1", accountId(1), "GHOST-2"] }),
      422,
      "unknown_accounts",
    );
    expect(problem.unknownAccountIds).toEqual(["GHOST-1", "GHOST-2"]);
    expect((await readOperation(op, operation.id)).accountCount).toBe(0);
    expect((await collectPages(op, routes.listAttachments, { params: { operationId: operation.id } })).items).toEqual([]);
  });

  it("edits attachments only in DRAFT and only on PRIVATE Operations", async () => {
    const op = await newTenant();
    await putDirectory(op, makeAccounts(3));
    const publicOp = await createOperation(op, { type: "PUBLIC" });
    expectProblem(await callRoute(op, routes.attachAccounts, { params: { operationId: publicOp.id }, body: [accountId(0)] }), 409, "operation_not_private");
    expectProblem(await callRoute(op, routes.detachAccounts, { params: { operationId: publicOp.id }, body: [accountId(0)] }), 409, "operation_not_private");

    const privateOp = await createOperation(op, { type: "PRIVATE" });
    await attach(op, privateOp.id, [accountId(0)]);
    expectStatus(
      await callRoute(op, routes.putLines, { params: { operationId: privateOp.id }, body: [{ variantExternalId: "A", minQuantity: 0, maxQuantity: 1 }] }),
      200,
    );
    expectStatus(await callRoute(op, routes.changeStatus, { params: { operationId: privateOp.id }, body: { status: "ACTIVE" } }), 200);
    expectProblem(await callRoute(op, routes.attachAccounts, { params: { operationId: privateOp.id }, body: [accountId(1)] }), 409, "operation_not_draft");
    expectProblem(
      await callRoute(op, routes.attachAccountsByPost, { params: { operationId: privateOp.id }, body: [accountId(1)] }),
      409,
      "operation_not_draft",
    );
    expectProblem(await callRoute(op, routes.detachAccounts, { params: { operationId: privateOp.id }, body: [accountId(0)] }), 409, "operation_not_draft");
    // 409 comes before 422: unknown accounts on a non-DRAFT Operation are a state problem first.
    expectProblem(await callRoute(op, routes.attachAccounts, { params: { operationId: privateOp.id }, body: ["GHOST"] }), 409, "operation_not_draft");
    expectProblem(await callRoute(op, routes.attachAccounts, { params: { operationId: publicOp.id }, body: ["GHOST"] }), 409, "operation_not_private");
    expect((await readOperation(op, privateOp.id)).accountCount).toBe(1);
    expectProblem(await callRoute(op, routes.attachAccounts, { params: { operationId: "op_nope" }, body: ["GHOST"] }), 404, "not_found");
  });

  it("lets an ACCOUNT key attach and detach only its own accounts: a mixed list is refused whole", async () => {
    const { op, operation } = await setup(6);
    const user1 = await issueKey(op.tenantId, "ACCOUNT", "u_1");
    const shared = await issueKey(op.tenantId, "ACCOUNT", "u_shared");

    const mixed = expectProblem(
      await callRoute(user1, routes.attachAccounts, { params: { operationId: operation.id }, body: [accountId(1), accountId(2), accountId(4)] }),
      403,
      "account_not_permitted",
    );
    expect(mixed.accountIds).toEqual([accountId(2), accountId(4)]);
    expect((await readOperation(op, operation.id)).accountCount).toBe(0);
    // Unknown accounts are reported before permission: 422 then 403.
    expectProblem(
      await callRoute(user1, routes.attachAccounts, { params: { operationId: operation.id }, body: [accountId(2), "GHOST"] }),
      422,
      "unknown_accounts",
    );

    expect(expectStatus(await callRoute(user1, routes.attachAccounts, { params: { operationId: operation.id }, body: [accountId(1)] }), 200)).toEqual({
      attached: 1,
      alreadyAttached: 0,
      accountCount: 1,
    });
    expect(
      expectStatus(await callRoute(shared, routes.attachAccountsByPost, { params: { operationId: operation.id }, body: [accountId(0), accountId(3)] }), 200)
        .attached,
    ).toBe(2);
    const attachedBy = (await collectPages(op, routes.listAttachments, { params: { operationId: operation.id } })).items.map((a) => a.attachedBy);
    expect(attachedBy).toEqual(["user:u_shared", "user:u_1", "user:u_shared"]);

    // Detach: same rule, mixed list refused whole.
    expectProblem(
      await callRoute(user1, routes.detachAccounts, { params: { operationId: operation.id }, body: [accountId(1), accountId(0)] }),
      403,
      "account_not_permitted",
    );
    expect((await readOperation(op, operation.id)).accountCount).toBe(3);
    expect(expectStatus(await callRoute(user1, routes.detachAccounts, { params: { operationId: operation.id }, body: [accountId(1)] }), 200)).toEqual({
      detached: 1,
      notAttached: [],
      accountCount: 2,
    });
    // OPERATOR keys may attach any account.
    expect((await attach(op, operation.id, [accountId(5), accountId(1)])).attached).toBe(2);
  });

  it("refuses oversized and empty batches", async () => {
    const { op, operation } = await setup(1);
    const many = Array.from({ length: 2001 }, (_, i) => accountId(i));
    expectProblem(await callRoute(op, routes.attachAccounts, { params: { operationId: operation.id }, body: many }), 413, "batch_too_large");
    expectProblem(await callRoute(op, routes.attachAccountsByPost, { params: { operationId: operation.id }, body: many }), 413, "batch_too_large");
    expectProblem(await callRoute(op, routes.detachAccounts, { params: { operationId: operation.id }, body: many }), 413, "batch_too_large");
    expectProblem(
      await callRoute(op, routes.attachAccounts, { params: { operationId: operation.id }, body: Array.from({ length: 2001 }, () => 7) }),
      413,
      "batch_too_large",
    );
    expectProblem(await callRoute(op, routes.attachAccounts, { params: { operationId: operation.id }, body: [] }), 400, "validation_failed");
    expectProblem(await callRoute(op, routes.detachAccounts, { params: { operationId: operation.id }, body: [] }), 400, "validation_failed");
    expectProblem(await callRoute(op, routes.attachAccounts, { params: { operationId: operation.id }, body: [accountId(0), 5] }), 400, "validation_failed");
    expectProblem(
      await callRoute(op, routes.attachAccounts, { params: { operationId: operation.id }, body: { accountIds: [accountId(0)] } }),
      400,
      "validation_failed",
    );
  });

  it("keeps tenants apart", async () => {
    const { op, operation } = await setup(3);
    await attach(op, operation.id, [accountId(0)]);
    const other = await newTenant();
    await putDirectory(
      other,
      makeAccounts(3, (i) => ({ accountId: `OTHER-${i}` })),
    );
    expectProblem(await callRoute(other, routes.listAttachments, { params: { operationId: operation.id } }), 404, "not_found");
    expectProblem(await callRoute(other, routes.attachAccounts, { params: { operationId: operation.id }, body: ["OTHER-0"] }), 404, "not_found");
    expectProblem(await callRoute(other, routes.detachAccounts, { params: { operationId: operation.id }, body: [accountId(0)] }), 404, "not_found");
    // Another tenant's account ids are not in this tenant's directory.
    const problem = expectProblem(
      await callRoute(op, routes.attachAccounts, { params: { operationId: operation.id }, body: ["OTHER-0"] }),
      422,
      "unknown_accounts",
    );
    expect(problem.unknownAccountIds).toEqual(["OTHER-0"]);
    expect(ids((await collectPages(op, routes.listAttachments, { params: { operationId: operation.id } })).items)).toEqual([accountId(0)]);
  });
});

describe("attachment list", () => {
  async function populated() {
    const { op, accounts, operation } = await setup(24);
    await attach(
      op,
      operation.id,
      accounts.slice(0, 8).map((a) => a.accountId),
    );
    await attach(
      op,
      operation.id,
      accounts
        .slice(8, 20)
        .reverse()
        .map((a) => a.accountId),
    );
    // operationStatus is owned by carts and orders; set it as they would.
    await (await tenantDb(op.tenantId))
      .prepare(
        "update operation_accounts set operation_status = case when account_id in (?, ?) then 'ORDERED' when account_id = ? then 'CART_CREATED' else operation_status end where operation_id = ?",
      )
      .bind(accountId(2), accountId(9), accountId(5), operation.id)
      .run();
    const attached = accounts.slice(0, 20);
    return { op, operation, attached, path: accountsPath(operation.id) };
  }

  it("filters by accountIds (alias accountId), accountName, userId, email and operationStatus", async () => {
    const { op, attached, path } = await populated();
    const list = async (query: Record<string, string>) => ids((await collectPages<Attachment>(op, path, { limit: 3, ...query })).items);

    expect(await list({ accountIds: `${accountId(1)},${accountId(21)},${accountId(5)}` })).toEqual([accountId(1), accountId(5)]);
    expect(await list({ accountId: accountId(7) })).toEqual([accountId(7)]);
    expect(await list({ accountName: "BETA" })).toEqual(ids(attached.filter((a) => a.name.includes("beta"))));
    expect(await list({ accountName: "unt 1" })).toEqual(ids(attached.filter((a) => a.name.includes("unt 1"))));
    expect(await list({ userId: "u_shared" })).toEqual(ids(attached.filter((_, i) => i % 3 === 0)));
    expect(await list({ userId: "u_22" })).toEqual([]);
    expect(await list({ email: "user4@EXAMPLE.test" })).toEqual([accountId(4)]);
    expect(await list({ email: "user4@" })).toEqual([]);
    expect(await list({ email: "SHARED@example.test", accountName: "alpha" })).toEqual(ids(attached.filter((a, i) => i % 3 === 0 && a.name.includes("Alpha"))));
    expect(await list({ operationStatus: "ORDERED" })).toEqual([accountId(2), accountId(9)]);
    expect(await list({ operationStatus: "CART_CREATED,ORDERED" })).toEqual([accountId(2), accountId(5), accountId(9)]);
    expect((await list({ operationStatus: "NOT_STARTED" })).length).toBe(17);
    expectProblem(await call(op, "GET", path, { query: { operationStatus: "DONE" } }), 400, "validation_failed");
    expectProblem(await call(op, "GET", path, { query: { sort: "email" } }), 400, "validation_failed");
    expectProblem(await call(op, "GET", path, { query: { limit: 1001 } }), 400, "validation_failed");
  });

  it("sorts by accountId, accountName and attachedAt, either way, across pages", async () => {
    const { op, path } = await populated();
    const all = (await collectPages<Attachment>(op, path, { limit: 1000 })).items;
    const list = async (sort: string) => ids((await collectPages<Attachment>(op, path, { limit: 3, sort })).items);
    const byName = [...all].sort((a, b) =>
      a.accountName.toLowerCase() === b.accountName.toLowerCase()
        ? a.accountId < b.accountId
          ? -1
          : 1
        : a.accountName.toLowerCase() < b.accountName.toLowerCase()
          ? -1
          : 1,
    );
    const byAttached = [...all].sort((a, b) => (a.attachedAt === b.attachedAt ? (a.accountId < b.accountId ? -1 : 1) : a.attachedAt < b.attachedAt ? -1 : 1));
    expect(await list("accountId")).toEqual(ids(all));
    expect(await list("-accountId")).toEqual(ids(all).reverse());
    expect(await list("accountName")).toEqual(ids(byName));
    expect(await list("-accountName")).toEqual(ids(byName).reverse());
    expect(await list("attachedAt")).toEqual(ids(byAttached));
    expect(await list("-attachedAt")).toEqual(ids(byAttached).reverse());
    // The second attach call came later: its accounts follow the first call's in attachedAt order.
    expect((await list("attachedAt")).slice(0, 8)).toEqual(Array.from({ length: 8 }, (_, i) => accountId(i)));
  });

  it("joins names and users from the directory as they are now", async () => {
    const { op, path } = await populated();
    await putDirectory(op, [{ accountId: accountId(4), name: "Fresh Name", users: [{ userId: "u_fresh", email: "fresh@x.test" }] }]);
    const [row] = (await collectPages<Attachment>(op, path, { accountIds: accountId(4) })).items;
    expect(row).toMatchObject({ accountName: "Fresh Name", users: [{ userId: "u_fresh", email: "fresh@x.test" }] });
    expect(ids((await collectPages<Attachment>(op, path, { userId: "u_fresh" })).items)).toEqual([accountId(4)]);
    expect(ids((await collectPages<Attachment>(op, path, { userId: "u_4" })).items)).toEqual([]);
  });

  it("shows ACCOUNT keys only their own attachments, on Operations they can see", async () => {
    const { op, operation, path } = await populated();
    const shared = await issueKey(op.tenantId, "ACCOUNT", "u_shared");
    const stranger = await issueKey(op.tenantId, "ACCOUNT", "u_nobody");
    expect(ids((await collectPages<Attachment>(shared, path)).items)).toEqual([0, 3, 6, 9, 12, 15, 18].map(accountId));
    expect(ids((await collectPages<Attachment>(shared, path, { accountIds: `${accountId(1)},${accountId(3)}` })).items)).toEqual([accountId(3)]);
    expectProblem(await call(stranger, "GET", path), 404, "not_found");
    expect((await readOperation(op, operation.id)).accountCount).toBe(20);
    expectProblem(await callRoute(op, routes.listAttachments, { params: { operationId: "op_nope" } }), 404, "not_found");
  });

  it("reads each page from this Operation's rows, and userId/email through the account_users indexes", async () => {
    const { op, operation } = await populated();
    const principal = await testPrincipal(op.tenantId);
    const cases: [Record<string, string>, RegExp[]][] = [
      [{}, [/SEARCH operation_accounts USING PRIMARY KEY \(operation_id=\?/]],
      [{ sort: "accountName" }, [/SEARCH operation_accounts USING PRIMARY KEY \(operation_id=\?/]],
      [{ sort: "-attachedAt" }, [/SEARCH operation_accounts USING INDEX operation_accounts_attached \(operation_id=\?/]],
      [{ accountName: "alpha" }, [/SEARCH operation_accounts USING PRIMARY KEY \(operation_id=\?/]],
      [
        { userId: "u_shared" },
        [
          /SEARCH account_users USING (COVERING )?INDEX account_users_user \(tenant_id=\? AND user_id=\?/,
          /SEARCH operation_accounts USING PRIMARY KEY \(operation_id=\? AND account_id=\?/,
        ],
      ],
      [
        { email: "shared@example.test" },
        [
          /SEARCH account_users USING (COVERING )?INDEX account_users_email \(tenant_id=\? AND email_lower=\?/,
          /SEARCH operation_accounts USING PRIMARY KEY \(operation_id=\? AND account_id=\?/,
        ],
      ],
    ];
    for (const [query, expected] of cases) {
      const { db, statements } = recordingDb(principal.shard);
      await listAttachments(
        { db, archive: env.HISTORY_ARCHIVE, secret: env.PAGINATION_SECRET, principal },
        operation.id,
        listAttachmentsQuery.parse({ limit: "5", ...query }),
      );
      const pageQuery = statements.find((s) => s.sql.includes('from "operation_accounts"'))!;
      const plan = (await queryPlan(pageQuery)).map((row) => row.detail).join("\n");
      for (const pattern of expected) expect(plan, JSON.stringify(query)).toMatch(pattern);
      expect(plan).not.toMatch(/SCAN (operation_accounts|account_users|accounts)/);
      expect(plan).not.toMatch(/operation_accounts_account/);
    }
  });
});
