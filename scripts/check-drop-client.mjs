// npm run check:drop-client: does the local server survive a client that drops mid-body?
// Starts a private `wrangler dev` (fresh local D1, its own port), then, over raw sockets:
//   1. a request that declares Content-Length 1 MiB and sends 1 KiB before closing;
//   2. a chunked upload of 9 MiB (answered 413 by the body limit) whose client closes mid-way;
// and after each, a plain request that must be answered. Exits 0 when the server kept serving.
// (wrangler 4.114.0–4.129.0 exited on these, as reported upstream; package.json pins 4.156.0.)
// `npm test` runs the same cases (test/node/dev-server.test.mjs).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DROPPED_UPLOADS, dropMidBody } from "./lib/drop-client.mjs";
import { answers, startDevServer } from "./lib/dev-server.mjs";
import { copyMigratedState } from "./lib/migrated-state.mjs";

const state = mkdtempSync(join(tmpdir(), "drop-client-"));
let server;
let failed = false;
try {
  await copyMigratedState(state);
  server = await startDevServer({ persistTo: state });
  for (const upload of DROPPED_UPLOADS) {
    await dropMidBody(server.port, upload);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const alive = server.running() && (await answers(server.baseUrl));
    console.log(`${alive ? "ok  " : "FAIL"} ${upload.name}: ${alive ? "the next request was answered" : "the server stopped answering"}`);
    if (!alive) failed = true;
  }
} catch (error) {
  console.error(error?.stack ?? error);
  failed = true;
} finally {
  await server?.stop();
  rmSync(state, { recursive: true, force: true });
}
process.exitCode = failed ? 1 : 0;
