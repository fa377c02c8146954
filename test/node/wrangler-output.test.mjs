// npm start prints each line once: the filter over wrangler dev's output (scripts/lib/wrangler-output.mjs).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { wranglerOutputFilter } from "../../scripts/lib/wrangler-output.mjs";

function filtered(lines) {
  const accept = wranglerOutputFilter();
  return lines.map(accept).filter((line) => line !== null);
}

const table = [
  "Your Worker has access to the following bindings:",
  "Binding   Resource   Mode",
  "env.CONTROL (campaign-policy-control)   D1 Database   local",
  "",
];

describe("npm start's view of wrangler dev", () => {
  it("shows the binding table once, however often wrangler prints it", () => {
    const out = filtered([...table, "⎔ Starting local server...", ...table, "[wrangler:info] Ready on http://127.0.0.1:8787"]);
    assert.equal(out.filter((line) => line.includes("following bindings")).length, 1);
    assert.ok(out.includes("[wrangler:info] Ready on http://127.0.0.1:8787"));
  });

  it("shows a changed binding table again", () => {
    const changed = [...table.slice(0, 2), "env.SHARD_3 (campaign-policy-shard-3)   D1 Database   local", ""];
    assert.equal(filtered([...table, ...changed]).length, 2);
  });

  it("leaves each request to the Worker's own JSON line", () => {
    const json = '{"requestId":"r","method":"GET","route":"/v1/operations","status":200}';
    assert.deepEqual(filtered([json, "\x1b[32m[wrangler:info]\x1b[0m GET /v1/operations 200 OK (12ms)"]), [json]);
  });

  it("drops the update notice of the pinned wrangler and the warning that crons do not run", () => {
    const out = filtered([
      " ⛅️ wrangler 4.156.2 (update available 4.164.0)",
      "▲ [WARNING] Scheduled Workers are not automatically triggered during local development.",
      "",
      "  To manually trigger a scheduled event, run:",
      '    curl "http://127.0.0.1:8787/cdn-cgi/local/scheduled"',
      "  For more details, see https://developers.cloudflare.com/workers/configuration/cron-triggers/",
      "⎔ Starting local server...",
    ]);
    assert.deepEqual(out, [" ⛅️ wrangler 4.156.2", "⎔ Starting local server..."]);
  });
});
