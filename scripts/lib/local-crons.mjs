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

/** The wall clock the schedules keep; a check passes its own so that no one waits for a cron's time. */
export const wallClock = {
  now: () => Date.now(),
  setTimeout: (run, ms) => setTimeout(run, ms),
  clearTimeout: (timer) => clearTimeout(timer),
};

/**
 * Starts one UTC schedule per cron; `onRun(cron, status)` hears of each run (a failed run is reported
 * with status 0 and never stops the schedule). A run fires for the time its schedule named; the next
 * is the first time after both that one and the run's end (a run never overlaps its own next). `stop()`
 * ends them all.
 */
export function startLocalCrons(baseUrl, { crons = configuredCrons(), onRun = () => {}, clock = wallClock } = {}) {
  const timers = new Set();
  let stopped = false;
  const scheduleAfter = (cron, pattern, after) => {
    const next = pattern.nextRun(new Date(after))?.getTime();
    if (next === undefined || stopped) return;
    const timer = clock.setTimeout(async () => {
      timers.delete(timer);
      let status = 0;
      try {
        status = await fireScheduled(baseUrl, cron, next);
      } catch {
        // the server is stopping or busy: the next time tries again
      }
      onRun(cron, status);
      scheduleAfter(cron, pattern, Math.max(next, clock.now()));
    }, next - clock.now());
    timers.add(timer);
  };
  for (const cron of crons) scheduleAfter(cron, new Cron(cron, { timezone: "UTC", paused: true }), clock.now());
  return {
    crons,
    stop: () => {
      stopped = true;
      for (const timer of timers) clock.clearTimeout(timer);
      timers.clear();
    },
  };
}
