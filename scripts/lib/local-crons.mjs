// `wrangler dev` never fires cron triggers by itself: this runs wrangler.toml's [triggers] crons on
// their production schedule against a local server, through the runtime's scheduled-event endpoint,
// so `npm start` sweeps webhooks and purges idempotency answers as a deployment does.
import { Cron } from "croner";
import { unstable_readConfig } from "wrangler";
import { repoRoot } from "./wrangler.mjs";
import { join } from "node:path";

/** The cron expressions of wrangler.toml's [triggers]. */
export function configuredCrons(configPath = join(repoRoot, "wrangler.toml")) {
  return unstable_readConfig({ config: configPath }).triggers?.crons ?? [];
}

/** Fires one scheduled event for `cron` on the local server; resolves with the HTTP status. */
export async function fireScheduled(baseUrl, cron, scheduledTime = Date.now()) {
  const url = `${baseUrl}/cdn-cgi/local/scheduled?cron=${encodeURIComponent(cron)}&time=${scheduledTime}`;
  const response = await fetch(url, { signal: AbortSignal.timeout(30_000) });
  await response.arrayBuffer();
  return response.status;
}

/**
 * Starts one UTC schedule per cron; `onRun(cron, status)` hears of each run (a failed run is reported
 * with status 0 and never stops the schedule). `stop()` ends them all.
 */
export function startLocalCrons(baseUrl, { crons = configuredCrons(), onRun = () => {} } = {}) {
  const jobs = crons.map(
    (cron) =>
      new Cron(cron, { timezone: "UTC", protect: true }, async (job) => {
        const scheduledTime = job.currentRun()?.getTime() ?? Date.now();
        let status = 0;
        try {
          status = await fireScheduled(baseUrl, cron, scheduledTime);
        } catch {
          // the server is stopping or busy: the next tick tries again
        }
        onRun(cron, status);
      }),
  );
  return {
    crons,
    stop: () => {
      for (const job of jobs) job.stop();
    },
  };
}
