// The API key format, shared as is by the Worker (src/platform/http/auth.ts, src/keys/commands.ts) and
// `npm run key` (scripts/lib/keys.mjs): plain JavaScript on WebCrypto alone, so both run this very
// file. Types: key-format.d.mts.
//
// A signed key is "sk3_" and 62 base64url characters: 46 bytes of
//   random (24 bytes) | issued-at (6 bytes: ms since the Unix epoch, big-endian) | tag (16 bytes),
// the tag being the first 16 bytes of HMAC-SHA256 under KEY_SIGNING_SECRET over "sk3" and the first
// 30 bytes. The Worker checks the tag before it reads any database, so a forged or mangled key costs
// no query; the issue time, covered by the tag, tells a key issued a moment ago (which a replica may
// not have yet) from any other. The random part comes first so that a key's visible start (its
// `prefix`) tells it apart from the tenant's other keys.
//
// Keys issued before that stay valid: "sk2_" keys are the same bytes with the issue time first (so
// keys issued within hours of each other start alike), and "sk_" keys with 43 base64url characters,
// issued before signing, carry no tag and are looked up as they were.

const ISSUED_AT_BYTES = 6;
const RANDOM_BYTES = 24;
const TAG_BYTES = 16;
const SIGNED_BYTES = ISSUED_AT_BYTES + RANDOM_BYTES;
const PAYLOAD_BYTES = SIGNED_BYTES + TAG_BYTES;
const LEGACY_KEY = /^sk_[A-Za-z0-9_-]{43}$/;

/** The fewest leading characters of a key its `prefix` shows; more when fewer would not tell it from another key of its tenant. */
export const KEY_PREFIX_LENGTH = 8;

/**
 * The signed layouts, the one issued today first: where the random part and the issue time sit
 * among the signed bytes, and the fewest characters of a key that can tell it apart. An "sk2_" key
 * starts with its issue time (8 characters after "sk2_"), which keys issued around the same time
 * share, so only its whole issue time and two random characters can.
 */
const SIGNED_FORMATS = [
  { version: "sk3", randomAt: 0, issuedAtAt: RANDOM_BYTES, prefixLength: KEY_PREFIX_LENGTH },
  { version: "sk2", randomAt: ISSUED_AT_BYTES, issuedAtAt: 0, prefixLength: 14 },
];

/** How long after its issue time a signed key may still be missing from a replica: only then is the primary asked. */
export const FRESH_KEY_MS = 5 * 60_000;

const encoder = new TextEncoder();
/** Imported HMAC keys by secret: one or two per process (a rotation adds one), plain data. */
const tagKeys = new Map();

async function tagKey(secret) {
  let key = tagKeys.get(secret);
  if (!key) {
    key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    if (tagKeys.size >= 4) tagKeys.clear();
    tagKeys.set(secret, key);
  }
  return key;
}

/** The tag over the format's version ("sk3", the tag's domain) and the signed bytes. */
async function tagOf(version, secret, signed) {
  const message = new Uint8Array(version.length + signed.length);
  message.set(encoder.encode(version));
  message.set(signed, version.length);
  return new Uint8Array(await crypto.subtle.sign("HMAC", await tagKey(secret), message)).slice(0, TAG_BYTES);
}

function toBase64Url(bytes) {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(text) {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}

/** Equal byte arrays, compared without an early exit (timing does not tell how much of a tag matched). */
function sameBytes(left, right) {
  let diff = left.length ^ right.length;
  for (let i = 0; i < Math.max(left.length, right.length); i++) diff |= (left[i] ?? 0) ^ (right[i] ?? 0);
  return diff === 0;
}

/**
 * A new signed key, issued at `issuedAtMs`, in the format issued today ("sk3"); "sk2" only makes
 * keys as they were issued before (tests of keys that exist).
 */
export async function mintSignedKey(secret, issuedAtMs = Date.now(), version = "sk3") {
  if (!secret) throw new Error("KEY_SIGNING_SECRET is not set: keys cannot be signed.");
  const format = SIGNED_FORMATS.find((candidate) => candidate.version === version);
  if (!format) throw new Error(`No signed key format ${version}.`);
  const signed = new Uint8Array(SIGNED_BYTES);
  let time = Math.floor(issuedAtMs);
  for (let i = ISSUED_AT_BYTES - 1; i >= 0; i--) {
    signed[format.issuedAtAt + i] = time % 256;
    time = Math.floor(time / 256);
  }
  signed.set(crypto.getRandomValues(new Uint8Array(RANDOM_BYTES)), format.randomAt);
  const payload = new Uint8Array(PAYLOAD_BYTES);
  payload.set(signed);
  payload.set(await tagOf(format.version, secret, signed), SIGNED_BYTES);
  return `${format.version}_${toBase64Url(payload)}`;
}

/**
 * What a presented key is, read without any database: "signed" (its tag verifies; issuedAtMs is
 * the issue time it carries), "legacy" (the format of keys issued before signing: only a lookup
 * tells) or "invalid" (neither: malformed, or a signed-looking key whose tag does not verify).
 */
export async function inspectKey(secret, key) {
  if (LEGACY_KEY.test(key)) return { format: "legacy" };
  const format = SIGNED_FORMATS.find(({ version }) => key.startsWith(`${version}_`));
  const encoded = format ? key.slice(format.version.length + 1) : "";
  if (!format || !/^[A-Za-z0-9_-]{62}$/.test(encoded) || !secret) return { format: "invalid" };
  const payload = fromBase64Url(encoded);
  // One spelling per key: another base64url spelling of the same bytes is not the issued key.
  if (payload.length !== PAYLOAD_BYTES || toBase64Url(payload) !== encoded) return { format: "invalid" };
  const signed = payload.slice(0, SIGNED_BYTES);
  if (!sameBytes(await tagOf(format.version, secret, signed), payload.slice(SIGNED_BYTES))) return { format: "invalid" };
  let issuedAtMs = 0;
  for (let i = 0; i < ISSUED_AT_BYTES; i++) issuedAtMs = issuedAtMs * 256 + signed[format.issuedAtAt + i];
  return { format: "signed", issuedAtMs };
}

/** The fewest leading characters of `key` that can tell it apart from other keys. */
function shortestPrefixLength(key) {
  return SIGNED_FORMATS.find(({ version }) => key.startsWith(`${version}_`))?.prefixLength ?? KEY_PREFIX_LENGTH;
}

/** The prefix a key is issued with: its first KEY_PREFIX_LENGTH characters (random ones after "sk3_"). */
export function keyPrefix(key) {
  return key.slice(0, shortestPrefixLength(key));
}

/** The most characters of a key a prefix may show: a prefix is a label, never most of the secret. */
const MAX_PREFIX_LENGTH = 20;

/**
 * The shortest start of `key`, at least as long as its format needs (keyPrefix), that none of
 * `others` (the prefixes of the tenant's other keys) begins with: never one of them, and never the
 * start of a longer one. For a key recorded without a prefix (an "sk2_" key whose first characters
 * other keys shared). Null when even MAX_PREFIX_LENGTH characters would not do.
 */
export function distinctPrefix(key, others) {
  for (let length = shortestPrefixLength(key); length <= MAX_PREFIX_LENGTH; length++) {
    const start = key.slice(0, length);
    if (!others.some((other) => other.startsWith(start))) return start;
  }
  return null;
}

/** Whether a signed key issued at `issuedAtMs` may still be missing from a replica at `now`. */
export function isFreshlyIssued(issuedAtMs, now = Date.now()) {
  return Math.abs(now - issuedAtMs) <= FRESH_KEY_MS;
}
