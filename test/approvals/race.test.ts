import { env } from "cloudflare:test";
import { drizzle } from "drizzle-orm/d1";
import { describe, expect, it } from "vitest";
import { changeStatus } from "../../src/operations/commands";
import type { CommandContext } from "../../src/operations/coordinator/protocol";
import type { Db } from "../../src/platform/data/database";
import { ApiError } from "../../src/platform/core/errors";
import { callRoute, collectPages, newTenant, problemCodeOf, readOperation, setStatus, uniqueId, type ApiResponse, type Caller } from "../helpers/client";
import { testPrincipal } from "../helpers/recording-db";
import { routes } from "../helpers/routes";
import { approve, decide, decisionsOf, draftOperation, requireApprovals, reviewer } from "./support";

/*
 * An activation never makes an unapproved version ACTIVE, however it races the writes that void
 * approvals. The Operation's Durable Object runs an edit, a decision and an activation one at a time,
 * and the activation's batch re-checks the approvals of the version it bumps in SQL.
 */

const ROUNDS = 12;

/** The version an Operation became ACTIVE from, read from its history (null: it never did). */
async function activatedFrom(op: Caller, operationId: string): Promise<number | null> {
  const records = (await collectPages(op, routes.listOperationHistory, { params: { operationId }, query: { field: "status" } })).items;
  const activation = records.find((record) => record.changes.some((change) => change.field === "status" && change.next === "ACTIVE"));
  return activation ? activation.version! - 1 : null;
}

/** The Operation is ACTIVE only from a version that a reviewer (not its author, op) approved and nobody rejected. */
async function expectNoUnapprovedActivation(op: Caller, operationId: string) {
  const from = await activatedFrom(op, operationId);
  if (from === null) return;
  const onThatVersion = (await decisionsOf(op, operationId)).filter((decision) => decision.version === from);
  expect(onThatVersion.filter((decision) => decision.decision === "APPROVE").length, `approvals of version ${from}`).toBeGreaterThanOrEqual(1);
  expect(onThatVersion.filter((decision) => decision.decision === "REJECT")).toEqual([]);
}

const outcome = (answer: ApiResponse) => (answer.status < 300 ? answer.status : `${answer.status} ${problemCodeOf(answer)}`);

describe("approvals and edits racing an activation", () => {
  it(`an edit and an activation at once, after an approval of the version before the edit (${ROUNDS} rounds): never ACTIVE unapproved`, async () => {
    const op = await newTenant();
    await requireApprovals(op, 1);
    const alice = await reviewer(op);
    for (let round = 0; round < ROUNDS; round++) {
      const operation = await draftOperation(op);
      await approve(alice, operation.id, operation.version);
      const params = { operationId: operation.id };
      const edit = () =>
        round % 2 === 0
          ? callRoute(op, routes.patchOperation, { params, body: { name: { en: `Edited ${round}` } } })
          : callRoute(op, routes.putLines, { params, body: [{ variantExternalId: uniqueId("SKU"), minQuantity: 0, maxQuantity: 4 }] });
      // Either sent first, in turn: the object takes them in whichever order they reach it.
      const activation = () => setStatus(op, operation.id, "ACTIVE");
      let edited: ApiResponse;
      let activated: Awaited<ReturnType<typeof activation>>;
      if (round % 4 < 2) [edited, activated] = await Promise.all([edit(), activation()]);
      else [activated, edited] = await Promise.all([activation(), edit()]);
      if (activated.status === 200) {
        // It activated the approved version; the edit came after it (lines are DRAFT only).
        expect(activated.body.version).toBe(operation.version + 1);
        expect([200, 409]).toContain(edited.status);
      } else {
        expect(outcome(activated)).toBe("409 approval_required");
        expect(edited.status).toBe(200);
        expect((await readOperation(op, operation.id)).status).toBe("DRAFT");
      }
      await expectNoUnapprovedActivation(op, operation.id);
    }
  });

  it(`an approval, an edit and an activation at once (${ROUNDS} rounds): never ACTIVE unapproved`, async () => {
    const op = await newTenant();
    await requireApprovals(op, 1);
    const alice = await reviewer(op);
    for (let round = 0; round < ROUNDS; round++) {
      const operation = await draftOperation(op);
      const params = { operationId: operation.id };
      const [decided, edited, activated] = await Promise.all([
        decide(alice, operation.id, "APPROVE", operation.version),
        callRoute(op, routes.patchOperation, { params, body: { description: { en: `Edited ${round}` } } }),
        setStatus(op, operation.id, "ACTIVE"),
      ]);
      expect([201, 409]).toContain(decided.status);
      expect(edited.status).toBe(200);
      expect([200, 409]).toContain(activated.status);
      if (activated.status === 200) expect(decided.status).toBe(201);
      await expectNoUnapprovedActivation(op, operation.id);
    }
  });
});

describe("the activation's guard in SQL", () => {
  /** A shard handle on which something commits just before the first batch: a write racing the command. */
  function racing(d1: D1Database, sneakIn: (d1: D1Database) => Promise<unknown>): Db {
    let raced = false;
    const client = new Proxy(d1, {
      get(target, prop, receiver) {
        if (prop === "batch") {
          return async (statements: D1PreparedStatement[]) => {
            if (!raced) {
              raced = true;
              await sneakIn(target);
            }
            return target.batch(statements);
          };
        }
        const value = Reflect.get(target, prop, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    return drizzle(client) as Db;
  }

  /** A tenant that needs one approval, and a draft of it that a reviewer approved. */
  async function approvedDraft() {
    const op = await newTenant();
    await requireApprovals(op, 1);
    const operation = await draftOperation(op);
    await approve(await reviewer(op), operation.id, operation.version);
    return { op, operation };
  }

  /** A decision on the draft's version written straight to the shard, as a racing request's batch would. */
  const decisionSneakingIn = (op: Caller, operation: { id: string; version: number }, approver: string, decision: "APPROVE" | "REJECT") => (d1: D1Database) =>
    d1
      .prepare("insert into operation_approvals (operation_id, version, approver, tenant_id, id, decision, decided_at) values (?, ?, ?, ?, ?, ?, ?)")
      .bind(operation.id, operation.version, approver, op.tenantId, uniqueId("apr"), decision, new Date().toISOString())
      .run();

  async function activateWhile(op: Caller, operationId: string, sneakIn: (d1: D1Database) => Promise<unknown>) {
    const principal = await testPrincipal(op.tenantId);
    const ctx: CommandContext = {
      db: racing(env[principal.shard], sneakIn),
      archive: env.HISTORY_ARCHIVE,
      principal,
      operationId,
      author: { actor: "key:k", keyId: null, requestId: null, reason: null },
    };
    return changeStatus.run(ctx, { status: "ACTIVE" }).then(
      () => null,
      (error: unknown) => error,
    );
  }

  it("refuses an activation when a rejection commits between its check and its batch: 409 approval_required, nothing changes", async () => {
    const { op, operation } = await approvedDraft();
    const refused = await activateWhile(op, operation.id, decisionSneakingIn(op, operation, "user:racer", "REJECT"));
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).problem).toMatchObject({ code: "approval_required", extras: { approvals: { required: 1, valid: 1, rejected: 1 } } });
    expect(await readOperation(op, operation.id)).toMatchObject({ status: "DRAFT", version: operation.version });
  });

  it("refuses it when the setting is raised in between", async () => {
    const { op, operation } = await approvedDraft();
    const refused = await activateWhile(op, operation.id, (d1) => d1.prepare("update tenants set approvals_required = 2 where id = ?").bind(op.tenantId).run());
    expect((refused as ApiError).problem).toMatchObject({ code: "approval_required", extras: { approvals: { required: 2, valid: 1, rejected: 0 } } });
    expect((await readOperation(op, operation.id)).status).toBe("DRAFT");
  });

  it("lets it through when what commits in between changes nothing it depends on", async () => {
    const { op, operation } = await approvedDraft();
    const refused = await activateWhile(op, operation.id, decisionSneakingIn(op, operation, "user:late", "APPROVE"));
    expect(refused).toBeNull();
    expect((await readOperation(op, operation.id)).status).toBe("ACTIVE");
  });
});
