// A scheduled status change is kept by the Operation's Durable Object alarm, which outlives the
// process: here the local server is stopped after the schedule is set an hour ahead and started
// again; the alarm is still armed for that time, and rung as at it (nobody waits an hour) it turns the
// Operation ACTIVE (actor `schedule`), once.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { promisify } from "node:util";
import { startDevServer } from "../../scripts/lib/dev-server.mjs";
import { operatorRequest } from "../../scripts/lib/local-server.mjs";
import { copyMigratedState } from "../../scripts/lib/migrated-state.mjs";
import { repoRoot } from "../../scripts/lib/wrangler.mjs";

const state = mkdtempSync(join(tmpdir(), "schedule-restart-test-"));
let server;

after(async () => {
  await server?.stop();
  rmSync(state, { recursive: true, force: true });
});

function caller(key) {
  return async (method, path, body) => {
    const response = await fetch(`${server.baseUrl}${path}`, {
      method,
      headers: { "svc-client": "OPERATOR", "svc-api-key": key, ...(body && { "content-type": "application/json" }) },
      body: body && JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };
}

describe("a scheduled activation across a restart of the local server", () => {
  it("runs at its time, once, after the server that armed it was stopped", { timeout: 240_000 }, async () => {
    await copyMigratedState(state);
    server = await startDevServer({ persistTo: state });
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [join(repoRoot, "scripts", "key.mjs"), "--tenant", "t_schedule_restart", "--role", "OPERATOR", "--persist-to", state],
      { cwd: repoRoot },
    );
    const api = caller(stdout.trim().split("\n").at(-1));

    const day = 86_400_000;
    const created = await api("POST", "/v1/operations", {
      code: "SCHEDULED",
      name: { en: "Scheduled" },
      type: "PUBLIC",
      startDate: `${new Date(Date.now() - day).toISOString().slice(0, 19)}Z`,
      endDate: `${new Date(Date.now() + 30 * day).toISOString().slice(0, 19)}Z`,
      ownerIds: ["u_ops"],
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id = created.body.id;
    const lines = await api("PUT", `/v1/operations/${id}/lines`, [{ variantExternalId: "SKU-1", minQuantity: 0, maxQuantity: 10 }]);
    assert.equal(lines.status, 200, JSON.stringify(lines.body));
    // To the second, as the API keeps it; an hour ahead, so the alarm never rings on its own here.
    const activateAt = `${new Date(Date.now() + 3_600_000).toISOString().slice(0, 19)}.000Z`;
    const scheduled = await api("PATCH", `/v1/operations/${id}`, { schedule: { activateAt } });
    assert.equal(scheduled.status, 200, JSON.stringify(scheduled.body));
    assert.equal(scheduled.body.status, "DRAFT");

    await server.stop();
    server = await startDevServer({ persistTo: state });
    assert.equal((await api("GET", `/v1/operations/${id}`)).body.status, "DRAFT");
    const ring = () => operatorRequest(server.operator, "POST", `/__local/operations/${id}/alarm`);
    assert.deepEqual(await ring(), { armedAt: activateAt, armedAfter: null }, "the alarm outlived the server, armed for the scheduled time");

    const operation = (await api("GET", `/v1/operations/${id}`)).body;
    assert.equal(operation.status, "ACTIVE");
    assert.equal(operation.schedule?.activateAt ?? null, null);
    assert.deepEqual(await ring(), { armedAt: null, armedAfter: null }, "nothing is left to ring");

    const events = (await api("GET", `/v1/events?types=operation.status_changed&operationId=${id}`)).body;
    const changes = events.items.filter((event) => event.operationId === id && event.type === "operation.status_changed");
    assert.equal(changes.length, 1, JSON.stringify(changes));
    assert.equal(changes[0].actor, "schedule");
    // The history has the scheduler's change, exactly what it changed.
    const [newest] = (await api("GET", `/v1/operations/${id}/history`)).body.items;
    assert.deepEqual(
      { actor: newest.actor, action: newest.action, changes: newest.changes },
      {
        actor: "schedule",
        action: "updated",
        changes: [
          { field: "status", previous: "DRAFT", next: "ACTIVE" },
          { field: "activateAt", previous: activateAt.replace(".000Z", "Z"), next: null },
        ],
      },
    );
  });
});
