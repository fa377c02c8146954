import { describe, expect, it } from "vitest";
import {
  call,
  callRoute,
  collectPages,
  eventsOf,
  expectProblem,
  expectStatus,
  issueKey,
  newTenant,
  readOperation,
  setStatus,
  type Caller,
} from "../helpers/client";
import { routes } from "../helpers/routes";
import { setUpOperation } from "../helpers/setup";
import { tenantDb } from "../helpers/shards";
import { approve, decide, decisionsOf, draftOperation, requireApprovals, reviewer } from "./support";

const settingsOf = async (op: Caller) => expectStatus(await callRoute(op, routes.getApprovalSettings), 200);

describe("GET / PUT /v1/settings/approvals", () => {
  it("is off until set, and answers the setting as stored (allowSelfApproval omitted: false)", async () => {
    const op = await newTenant();
    expect(await settingsOf(op)).toEqual({ activation: { required: 0, allowSelfApproval: false } });
    expect(expectStatus(await callRoute(op, routes.setApprovalSettings, { body: { activation: { required: 2 } } }), 200)).toEqual({
      activation: { required: 2, allowSelfApproval: false },
    });
    expect(await settingsOf(op)).toEqual({ activation: { required: 2, allowSelfApproval: false } });
    await requireApprovals(op, 5, true);
    expect(await settingsOf(op)).toEqual({ activation: { required: 5, allowSelfApproval: true } });
  });

  it("refuses anything but the setting's own shape with 400 naming the field, and changes nothing", async () => {
    const op = await newTenant();
    await requireApprovals(op, 1);
    const refused: [unknown, string][] = [
      [{ activation: { required: 6 } }, "body.activation.required"],
      [{ activation: { required: -1 } }, "body.activation.required"],
      [{ activation: { required: 1.5 } }, "body.activation.required"],
      [{ activation: { required: "2" } }, "body.activation.required"],
      [{ activation: { required: 1, allowSelfApproval: "yes" } }, "body.activation.allowSelfApproval"],
      [{ activation: { required: 1, reviewers: 2 } }, "body.activation"],
      [{ activation: { required: 1 }, extra: true }, "body"],
      [{ activation: {} }, "body.activation.required"],
      [{}, "body.activation"],
      [{ required: 2 }, "body"],
    ];
    for (const [body, field] of refused) {
      const problem = expectProblem(await callRoute(op, routes.setApprovalSettings, { body }), 400, "validation_failed");
      expect(
        problem.errors?.map((error) => error.field),
        JSON.stringify(body),
      ).toContain(field);
    }
    expect(await settingsOf(op)).toEqual({ activation: { required: 1, allowSelfApproval: false } });
  });

  it("records each change of the setting in the history, and nothing for a setting already there", async () => {
    const op = await newTenant();
    await requireApprovals(op, 2);
    await requireApprovals(op, 2);
    await requireApprovals(op, 2, true);
    const records = (await collectPages(op, routes.listHistory, { query: { resourceType: "settings" } })).items;
    expect(records.map((record) => [record.resourceId, record.action, record.changes])).toEqual([
      ["approvals", "updated", [{ field: "allowSelfApproval", previous: false, next: true }]],
      ["approvals", "updated", [{ field: "required", previous: 0, next: 2 }]],
    ]);
    expect(records[0].actor).toMatch(/^key:/);
  });

  it("concurrent changes each record what they changed from: the records chain from the first setting to the last", async () => {
    const op = await newTenant();
    // Each write that loses reads again (at least one of those reading alike wins): four at once all land.
    const answers = await Promise.all([1, 2, 3, 4].map((required) => callRoute(op, routes.setApprovalSettings, { body: { activation: { required } } })));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    const records = (await collectPages(op, routes.listHistory, { query: { resourceType: "settings", sort: "at" } })).items;
    const steps = records.map((record) => record.changes.find((change) => change.field === "required")!);
    expect(steps[0].previous).toBe(0);
    for (let i = 1; i < steps.length; i++) expect(steps[i].previous, `record ${i}`).toBe(steps[i - 1].next);
    expect(steps.at(-1)!.next).toBe((await settingsOf(op)).activation.required);
  });

  it("is the tenant's own: another tenant's setting changes nothing here", async () => {
    const [a, b] = [await newTenant(), await newTenant()];
    await requireApprovals(b, 3);
    expect(await settingsOf(a)).toEqual({ activation: { required: 0, allowSelfApproval: false } });
    const operation = await draftOperation(a);
    expect(expectStatus(await setStatus(a, operation.id, "ACTIVE"), 200).status).toBe("ACTIVE");
  });

  it("is OPERATOR only: an ACCOUNT key gets 403 on every approvals route", async () => {
    const op = await newTenant();
    const operation = await draftOperation(op);
    const account = await issueKey(op.tenantId, "ACCOUNT", "u-buyer");
    const params = { operationId: operation.id };
    expectProblem(await callRoute(account, routes.getApprovalSettings), 403, "forbidden");
    expectProblem(await callRoute(account, routes.setApprovalSettings, { body: { activation: { required: 0 } } }), 403, "forbidden");
    expectProblem(await callRoute(account, routes.listApprovalDecisions, { params }), 403, "forbidden");
    expectProblem(await decide(account, operation.id, "APPROVE", operation.version), 403, "forbidden");
    expect(await decisionsOf(op, operation.id)).toEqual([]);
  });
});

describe("POST /v1/operations/{operationId}/approvals", () => {
  it("records the decision bound to the current version, by the key's user: 201, an event and a change record", async () => {
    const op = await newTenant();
    const operation = await draftOperation(op);
    const alice = await reviewer(op, "u-alice");
    const decided = expectStatus(await decide(alice, operation.id, "APPROVE", operation.version, "Checked the prices"), 201);
    expect(decided).toEqual({
      id: expect.stringMatching(/^apr_/),
      operationId: operation.id,
      version: operation.version,
      decision: "APPROVE",
      comment: "Checked the prices",
      approver: "user:u-alice",
      decidedAt: expect.any(String),
      valid: true,
    });
    expect(await decisionsOf(op, operation.id)).toEqual([decided]);
    // A decision makes no version: the Operation is as it was.
    expect((await readOperation(op, operation.id)).version).toBe(operation.version);

    const events = (await eventsOf(op, { operationId: operation.id })).filter((event) => event.type === "operation.approved");
    expect(events).toEqual([
      expect.objectContaining({
        actor: "user:u-alice",
        data: { approvalId: decided.id, version: operation.version, approver: "user:u-alice", comment: "Checked the prices" },
      }),
    ]);
    const records = (await collectPages(op, routes.listOperationHistory, { params: { operationId: operation.id }, query: { resourceType: "approval" } })).items;
    expect(records).toEqual([
      expect.objectContaining({
        resourceType: "approval",
        resourceId: decided.id,
        operationId: operation.id,
        action: "created",
        actor: "user:u-alice",
        changes: expect.arrayContaining([
          { field: "decision", next: "APPROVE" },
          { field: "version", next: operation.version },
          { field: "approver", next: "user:u-alice" },
        ]),
      }),
    ]);
    expect(records[0].version, "a decision makes no version of the Operation").toBeUndefined();
  });

  it("refuses a version that is not the current one with 409 version_mismatch, recording nothing", async () => {
    const op = await newTenant();
    const operation = await draftOperation(op);
    const alice = await reviewer(op);
    for (const version of [operation.version - 1, operation.version + 1]) {
      const problem = expectProblem(await decide(alice, operation.id, "APPROVE", version), 409, "version_mismatch");
      expect(problem).toMatchObject({ status: 409, currentVersion: operation.version });
    }
    expect(await decisionsOf(op, operation.id)).toEqual([]);
    expect((await eventsOf(op, { operationId: operation.id })).filter((event) => event.type.startsWith("operation.approved"))).toEqual([]);
  });

  it("is documented so: the decision's 409 answer names version_mismatch, and it declares no 412", async () => {
    const document = (await call(null, "GET", "/v1/openapi.json")).body as {
      paths: Record<string, Record<string, { responses: Record<string, { $ref: string }> }>>;
      components: { responses: Record<string, { description: string }> };
    };
    const { responses } = document.paths["/v1/operations/{operationId}/approvals"].post;
    expect(Object.keys(responses)).not.toContain("412");
    expect(document.components.responses[responses["409"].$ref.split("/").pop()!].description).toContain("version_mismatch:");
  });

  it("refuses bodies that are not a decision with 400 naming the field", async () => {
    const op = await newTenant();
    const operation = await draftOperation(op);
    const params = { operationId: operation.id };
    const refused: [unknown, string][] = [
      [{ decision: "MAYBE", version: operation.version }, "body.decision"],
      [{ decision: "APPROVE" }, "body.version"],
      [{ decision: "APPROVE", version: 0 }, "body.version"],
      [{ decision: "APPROVE", version: "1" }, "body.version"],
      [{ decision: "APPROVE", version: operation.version, comment: "a\u0000b" }, "body.comment"],
      [{ decision: "APPROVE", version: operation.version, comment: "x".repeat(501) }, "body.comment"],
      [{ decision: "APPROVE", version: operation.version, approver: "user:someone-else" }, "body"],
    ];
    for (const [body, field] of refused) {
      const problem = expectProblem(await callRoute(op, routes.decideOnOperation, { params, body }), 400, "validation_failed");
      expect(
        problem.errors?.map((error) => error.field),
        JSON.stringify(body),
      ).toContain(field);
    }
    expect(await decisionsOf(op, operation.id)).toEqual([]);
  });

  it("answers 404 for an Operation that does not exist", async () => {
    const op = await newTenant();
    const operation = await draftOperation(op);
    expectStatus(await callRoute(op, routes.deleteOperation, { params: { operationId: operation.id } }), 204);
    expectProblem(await decide(op, operation.id, "APPROVE", operation.version), 404, "not_found");
    expectProblem(await callRoute(op, routes.listApprovalDecisions, { params: { operationId: operation.id } }), 404, "not_found");
  });

  it("the same approver deciding twice on one version: the later decision replaces the earlier, under its id", async () => {
    const op = await newTenant();
    const operation = await draftOperation(op);
    const alice = await reviewer(op);
    const first = await approve(alice, operation.id, operation.version);
    const second = expectStatus(await decide(alice, operation.id, "REJECT", operation.version, "Wrong dates"), 201);
    expect(second).toMatchObject({ id: first.id, decision: "REJECT", comment: "Wrong dates", valid: true });
    expect(await decisionsOf(op, operation.id)).toEqual([second]);
    // Another key of the same user is the same approver.
    const aliceAgain = await issueKey(op.tenantId, "OPERATOR", alice.userId);
    const third = await approve(aliceAgain, operation.id, operation.version);
    expect(await decisionsOf(op, operation.id)).toEqual([{ ...third, id: first.id }]);

    const types = (await eventsOf(op, { operationId: operation.id })).map((event) => event.type).filter((type) => /approved|rejected/.test(type));
    expect(types).toEqual(["operation.approved", "operation.rejected", "operation.approved"]);
    const records = (await collectPages(op, routes.listOperationHistory, { params: { operationId: operation.id }, query: { resourceType: "approval" } })).items;
    expect(records.map((record) => [record.resourceId, record.action])).toEqual([
      [first.id, "updated"],
      [first.id, "updated"],
      [first.id, "created"],
    ]);
    expect(records[1].changes).toEqual(
      expect.arrayContaining([
        { field: "decision", previous: "APPROVE", next: "REJECT" },
        { field: "comment", previous: null, next: "Wrong dates" },
      ]),
    );
  });
});

describe("GET /v1/operations/{operationId}/approvals", () => {
  it("lists every decision with valid: a change that bumps the version voids them, and they stay listed", async () => {
    const op = await newTenant();
    const operation = await draftOperation(op);
    const [alice, bob] = [await reviewer(op), await reviewer(op)];
    const approved = await approve(alice, operation.id, operation.version);
    const rejected = expectStatus(await decide(bob, operation.id, "REJECT", operation.version), 201);
    expect((await decisionsOf(op, operation.id)).map((item) => [item.id, item.valid])).toEqual([
      [rejected.id, true],
      [approved.id, true],
    ]);

    const edited = expectStatus(await callRoute(op, routes.patchOperation, { params: { operationId: operation.id }, body: { name: { en: "Renamed" } } }), 200);
    expect(edited.version).toBe(operation.version + 1);
    expect((await decisionsOf(op, operation.id)).map((item) => [item.id, item.version, item.valid])).toEqual([
      [rejected.id, operation.version, false],
      [approved.id, operation.version, false],
    ]);
    const again = await approve(alice, operation.id, edited.version);
    expect(again.id).not.toBe(approved.id);
    // Pages of one: keyset pages over the same list.
    expect((await decisionsOf(op, operation.id, { limit: "1" })).map((item) => [item.id, item.valid])).toEqual([
      [again.id, true],
      [rejected.id, false],
      [approved.id, false],
    ]);
  });

  it("a version read back from the history is unaffected by the decisions made on it", async () => {
    const op = await newTenant();
    const operation = await draftOperation(op);
    await approve(await reviewer(op), operation.id, operation.version);
    const read = expectStatus(await callRoute(op, routes.getOperationVersion, { params: { operationId: operation.id, version: "1" } }), 200);
    expect(read).toMatchObject({ version: 1, lineCount: 0 });
    const current = expectStatus(
      await callRoute(op, routes.getOperationVersion, { params: { operationId: operation.id, version: String(operation.version) } }),
      200,
    );
    expect(current).toMatchObject({ version: operation.version, lineCount: operation.lineCount, status: "DRAFT" });
  });

  it("deleting the Operation deletes its decisions; their history stays", async () => {
    const op = await newTenant();
    const operation = await draftOperation(op);
    await approve(await reviewer(op), operation.id, operation.version);
    expectStatus(await callRoute(op, routes.deleteOperation, { params: { operationId: operation.id } }), 204);
    expectProblem(await callRoute(op, routes.listApprovalDecisions, { params: { operationId: operation.id } }), 404, "not_found");
    const db = await tenantDb(op.tenantId);
    expect(await db.prepare("select count(*) as n from operation_approvals where operation_id = ?").bind(operation.id).first("n")).toBe(0);
    const records = (await collectPages(op, routes.listOperationHistory, { params: { operationId: operation.id }, query: { resourceType: "approval" } })).items;
    expect(records).toHaveLength(1);
  });
});

describe("activation with approvals on", () => {
  const refusal = async (op: Caller, operationId: string) => expectProblem(await setStatus(op, operationId, "ACTIVE"), 409, "approval_required");

  it("off (required 0): activation needs no decision", async () => {
    const op = await newTenant();
    const operation = await draftOperation(op);
    expect(expectStatus(await setStatus(op, operation.id, "ACTIVE"), 200).status).toBe("ACTIVE");
  });

  it("needs `required` valid approvals: 409 approval_required with the figures until then, and nothing changes", async () => {
    const op = await newTenant();
    await requireApprovals(op, 1);
    const operation = await draftOperation(op);
    const problem = await refusal(op, operation.id);
    expect(problem.approvals).toEqual({ required: 1, valid: 0, rejected: 0 });
    expect(problem.detail).toContain("1 approval");
    expect(await readOperation(op, operation.id)).toMatchObject({ status: "DRAFT", version: operation.version });
    await approve(await reviewer(op), operation.id, operation.version);
    expect(expectStatus(await setStatus(op, operation.id, "ACTIVE"), 200)).toMatchObject({ status: "ACTIVE", version: operation.version + 1 });
  });

  it("an approval of an earlier version does not count", async () => {
    const op = await newTenant();
    await requireApprovals(op, 1);
    const operation = await draftOperation(op);
    await approve(await reviewer(op), operation.id, operation.version);
    const lines = [{ variantExternalId: "SKU-LATE", minQuantity: 0, maxQuantity: 3 }];
    expectStatus(await callRoute(op, routes.putLines, { params: { operationId: operation.id }, body: lines }), 200);
    expect((await refusal(op, operation.id)).approvals).toEqual({ required: 1, valid: 0, rejected: 0 });
  });

  it("the author of the version's last change does not count unless allowSelfApproval", async () => {
    const op = await newTenant();
    await requireApprovals(op, 1);
    const operation = await draftOperation(op);
    // op (a key without a user) made the version: its own approval is kept, and does not count.
    await approve(op, operation.id, operation.version);
    expect((await refusal(op, operation.id)).approvals).toEqual({ required: 1, valid: 0, rejected: 0 });
    await requireApprovals(op, 1, true);
    expect(expectStatus(await setStatus(op, operation.id, "ACTIVE"), 200).status).toBe("ACTIVE");
  });

  it("one person cannot pass alone: writes that change nothing make no version, so the author's own approval never counts", async () => {
    const op = await newTenant();
    await requireApprovals(op, 1);
    const operation = await draftOperation(op);
    const alice = await reviewer(op, "u-alice");
    const params = { operationId: operation.id };
    const lines = [{ variantExternalId: "SKU-ALICE", minQuantity: 0, maxQuantity: 4 }];
    expectStatus(await callRoute(alice, routes.putLines, { params, body: lines }), 200);
    const authored = await readOperation(op, operation.id);
    // The same lines again, a revert to where it is, a name in another order: nothing changes, no version is made.
    expect(expectStatus(await callRoute(alice, routes.putLines, { params, body: lines }), 200)).toMatchObject({ created: 0, updated: 1 });
    expectStatus(await callRoute(alice, routes.revertOperation, { params, body: { toVersion: authored.version } }), 200);
    const reordered = Object.fromEntries(Object.entries(authored.name).reverse());
    expectStatus(await callRoute(alice, routes.patchOperation, { params, body: { name: reordered } }), 200);
    expect(await readOperation(op, operation.id)).toMatchObject({ version: authored.version, updatedAt: authored.updatedAt });
    await approve(alice, operation.id, authored.version);
    expect((await refusal(alice, operation.id)).approvals).toEqual({ required: 1, valid: 0, rejected: 0 });
    // Every version has exactly one change set: its author.
    const records = (await collectPages(op, routes.listOperationHistory, { params })).items;
    const setsOf = new Map<number, Set<string>>();
    for (const record of records.filter((record) => record.version !== undefined))
      setsOf.set(record.version!, (setsOf.get(record.version!) ?? new Set()).add(record.id.split("-")[0]));
    expect([...setsOf.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: authored.version }, (_, i) => i + 1));
    expect([...setsOf.values()].every((sets) => sets.size === 1)).toBe(true);
  });

  it("a version with no change set of its own (made before no-op writes stopped making versions) is its content's author's", async () => {
    const op = await newTenant();
    await requireApprovals(op, 1);
    const operation = await draftOperation(op);
    const alice = await reviewer(op, "u-alice");
    const params = { operationId: operation.id };
    expectStatus(await callRoute(alice, routes.putLines, { params, body: [{ variantExternalId: "SKU-A", minQuantity: 0, maxQuantity: 4 }] }), 200);
    // Such a version, as an earlier no-op write left it: a bump with no set.
    const db = await tenantDb(op.tenantId);
    await db.prepare("update operations set version = version + 1 where id = ?").bind(operation.id).run();
    const bare = await readOperation(op, operation.id);
    await approve(alice, operation.id, bare.version);
    expect((await refusal(alice, operation.id)).approvals).toEqual({ required: 1, valid: 0, rejected: 0 });
    await approve(await reviewer(op), operation.id, bare.version);
    expect(expectStatus(await setStatus(alice, operation.id, "ACTIVE"), 200).status).toBe("ACTIVE");
  });

  it("the author is a person: another key of the user who made the version is the author too", async () => {
    const op = await newTenant();
    await requireApprovals(op, 1);
    const operation = await draftOperation(op);
    const [carol, carolsOtherKey] = [await reviewer(op, "u-carol"), await issueKey(op.tenantId, "OPERATOR", "u-carol")];
    const edited = expectStatus(
      await callRoute(carol, routes.patchOperation, { params: { operationId: operation.id }, body: { name: { en: "By Carol" } } }),
      200,
    );
    await approve(carolsOtherKey, operation.id, edited.version);
    expect((await refusal(op, operation.id)).approvals).toEqual({ required: 1, valid: 0, rejected: 0 });
    await approve(op, operation.id, edited.version);
    expect(expectStatus(await setStatus(carol, operation.id, "ACTIVE"), 200).status).toBe("ACTIVE");
    const history = (await collectPages(op, routes.listOperationHistory, { params: { operationId: operation.id }, query: { field: "name" } })).items;
    expect(history[0].actor).toBe("user:u-carol");
  });

  it("needs distinct approvers: two keys of one user are one approval", async () => {
    const op = await newTenant();
    await requireApprovals(op, 2);
    const operation = await draftOperation(op);
    const dave = await reviewer(op, "u-dave");
    await approve(dave, operation.id, operation.version);
    await approve(await issueKey(op.tenantId, "OPERATOR", "u-dave"), operation.id, operation.version);
    expect((await refusal(op, operation.id)).approvals).toEqual({ required: 2, valid: 1, rejected: 0 });
    await approve(await reviewer(op, "u-erin"), operation.id, operation.version);
    expect(expectStatus(await setStatus(op, operation.id, "ACTIVE"), 200).status).toBe("ACTIVE");
  });

  it("a valid REJECT blocks, whatever the approvals; the rejecter approving instead unblocks", async () => {
    const op = await newTenant();
    await requireApprovals(op, 1);
    const operation = await draftOperation(op);
    const [alice, bob] = [await reviewer(op), await reviewer(op)];
    await approve(alice, operation.id, operation.version);
    expectStatus(await decide(bob, operation.id, "REJECT", operation.version), 201);
    const problem = await refusal(op, operation.id);
    expect(problem.approvals).toEqual({ required: 1, valid: 1, rejected: 1 });
    expect(problem.detail).toContain("rejection");
    await approve(bob, operation.id, operation.version);
    expect(expectStatus(await setStatus(op, operation.id, "ACTIVE"), 200).status).toBe("ACTIVE");
  });

  it("gates INACTIVE → ACTIVE too, and leaves the other transitions alone", async () => {
    const op = await newTenant();
    const active = await setUpOperation(op);
    await requireApprovals(op, 1);
    const inactive = expectStatus(await setStatus(op, active.id, "INACTIVE"), 200);
    expect((await refusal(op, active.id)).approvals).toEqual({ required: 1, valid: 0, rejected: 0 });
    expect(expectStatus(await setStatus(op, active.id, "DRAFT"), 200).status).toBe("DRAFT");
    const draft = await readOperation(op, active.id);
    expect(draft.version).toBe(inactive.version + 1);
    await refusal(op, active.id);
    await approve(await reviewer(op), active.id, draft.version);
    expect(expectStatus(await setStatus(op, active.id, "ACTIVE"), 200).status).toBe("ACTIVE");
  });

  it("answers 409 approval_required only after the transition's own checks (a missing line is invalid_transition)", async () => {
    const op = await newTenant();
    await requireApprovals(op, 1);
    const operation = await setUpOperation(op, { status: "DRAFT", lines: [] });
    expectProblem(await setStatus(op, operation.id, "ACTIVE"), 409, "invalid_transition");
    expectProblem(
      await call(op, "POST", `/v1/operations/${operation.id}/status`, { body: { status: "ACTIVE" }, headers: { "If-Match": '"99"' } }),
      412,
      "version_mismatch",
    );
  });
});

describe("webhooks", () => {
  it("subscribe to operation.approved and operation.rejected", async () => {
    const op = await newTenant();
    const created = expectStatus(
      await callRoute(op, routes.createWebhook, {
        body: { url: "https://hooks.example.com/approvals", eventTypes: ["operation.approved", "operation.rejected"] },
      }),
      201,
    );
    expect(created.eventTypes).toEqual(["operation.approved", "operation.rejected"]);
  });
});
