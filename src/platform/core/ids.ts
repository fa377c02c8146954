const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

let lastTime = 0;
let lastRandom: number[] = [];

function encodeTime(ms: number): string {
  let out = "";
  for (let i = 0; i < 10; i++) {
    out = CROCKFORD[ms % 32] + out;
    ms = Math.floor(ms / 32);
  }
  return out;
}

/** A clock step back longer than this starts ids at the clock again: an id's time stays its creation's. */
const MAX_STEP_BACK_MS = 1_000;

function nextRandom(now: number): number[] {
  if (now <= lastTime && lastTime - now <= MAX_STEP_BACK_MS && lastRandom.length) {
    // Same millisecond (or a small clock step back): increment so ids stay strictly increasing in this isolate.
    const next = [...lastRandom];
    for (let i = next.length - 1; i >= 0; i--) {
      if (next[i] < 31) {
        next[i]++;
        break;
      }
      next[i] = 0;
    }
    lastRandom = next;
    return next;
  }
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  lastRandom = Array.from(bytes, (b) => b % 32);
  lastRandom[0] = lastRandom[0] & 15; // headroom so increments within one millisecond never overflow
  lastTime = now;
  return lastRandom;
}

/** Time-ordered id (ULID layout): string order follows creation order. */
export function newId(prefix: string): string {
  const now = Date.now();
  const time = encodeTime(lastTime - now <= MAX_STEP_BACK_MS ? Math.max(now, lastTime) : now);
  const random = nextRandom(now);
  return `${prefix}_${time}${random.map((n) => CROCKFORD[n]).join("")}`;
}

/** The smallest id `newId(prefix)` makes at `ms` or later, and greater than any it made before: ids start with their time. */
export function idAtTime(prefix: string, ms: number): string {
  return `${prefix}_${encodeTime(ms)}`;
}

/** When `newId` made this id (epoch ms), read from its leading time. */
export function timeOfId(id: string): number {
  const time = id.slice(id.indexOf("_") + 1, id.indexOf("_") + 11);
  let ms = 0;
  for (const char of time) ms = ms * 32 + CROCKFORD.indexOf(char);
  return ms;
}

export const idPrefixes = {
  operation: "op",
  rule: "qr",
  cart: "cart",
  order: "ord",
  event: "evt",
  key: "key",
  webhook: "wh",
  delivery: "dlv",
  change: "chg",
  move: "mov",
  approval: "apr",
} as const;

/** Whether `value` is an id `newId(prefix)` could have made: a cheap check before any lookup. */
export function isWellFormedId(prefix: string, value: string): boolean {
  return value.length === prefix.length + 27 && value.startsWith(`${prefix}_`) && /^[0-9A-HJKMNP-TV-Z]{26}$/.test(value.slice(prefix.length + 1));
}
