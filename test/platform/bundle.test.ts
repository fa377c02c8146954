import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import * as entry from "../../src/index";

/*
 * The Worker as `wrangler deploy` would upload it (built by vitest.config.ts with --dry-run): CI
 * proves it builds, and holds its compressed size to a budget far under the platform's limit (3 MB
 * on the free plan, 10 MB on paid ones), because a smaller script starts faster in every new isolate.
 * What once blew it: `import { z } from "zod"` pulls every zod locale in; `import * as z` does not.
 * 210 → 220 KiB when scheduled-change recovery, streamed exports and exact webhook hand-on came in
 * (+2 KiB gzipped of our own code, unminified, comments included); 220 → 240 KiB when change history
 * (records on every write, versions, diffs, revert), impact replays, one rule for ids and
 * date-times, and security headers came in (226 KiB then); 240 → 250 KiB when approvals and the
 * history archive (its job, object format, index, reads across the boundary, retention) came in
 * (241.5 KiB then); 250 → 265 KiB when tenant moves (the TenantMover object, the capture and
 * catch-up, the checks on both shards) and the display and redelivery routes came in (255.3 KiB then);
 * 265 → 280 KiB when the running campaign came in: orders cancelled, totals kept per line, account and
 * day, their routes, generated triggers (268 KiB then); 280 → 295 KiB when allocation (pools, caps,
 * the plan) and local operator routes came in (280 KiB then).
 */
const BUDGET_GZIP_BYTES = 295 * 1024;

async function gzipSize(text: string): Promise<number> {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream("gzip"));
  return (await new Response(stream).arrayBuffer()).byteLength;
}

describe("the deploy bundle", () => {
  it(`builds, and stays under ${BUDGET_GZIP_BYTES / 1024} KiB gzipped`, async () => {
    const bundle = env.PRODUCTION_BUNDLE;
    expect(bundle).toContain("OperationCoordinator");
    const gzipped = await gzipSize(bundle);
    console.info(`deploy bundle: ${(bundle.length / 1024).toFixed(0)} KiB, ${(gzipped / 1024).toFixed(0)} KiB gzipped`);
    expect(gzipped).toBeLessThanOrEqual(BUDGET_GZIP_BYTES);
  });

  it("keeps no function names by helper (keep_names = false)", () => {
    // With wrangler's default, every closure the code creates is renamed by a defineProperty call: on a
    // 5000-line PUT that was a tenth of the Durable Object's work. The unminified bundle keeps names anyway.
    expect(env.PRODUCTION_BUNDLE).not.toMatch(/\b__name\(/);
  });

  it("carries no zod locale but English", () => {
    // zod's locales each define their own error messages; one of them is enough to see the whole set came in.
    expect(env.PRODUCTION_BUNDLE).not.toMatch(/Ungültige Eingabe|Entrada inválida|Entrée invalide/);
  });

  it("its entry exports only what the runtime can start: handlers and the Durable Object class", () => {
    // workerd treats every named export of the entry as an entrypoint and refuses to start on a plain value.
    for (const [name, value] of Object.entries(entry)) {
      const startable =
        typeof value === "function" || (typeof value === "object" && value !== null && typeof (value as { fetch?: unknown }).fetch === "function");
      expect(startable, `src/index.ts exports ${name}, which is neither a handler nor a class`).toBe(true);
    }
  });
});
