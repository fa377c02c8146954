// The API key format, shared as is by the Worker (src/platform/auth.ts, src/keys/commands.ts) and
// `npm run key` (scripts/lib/keys.mjs): plain JavaScript on WebCrypto alone, so both run this very
// file. Types: key-format.d.mts.
//
// A signed key is "sk2_" and 62 base64url characters: 46 bytes of
//   issued-at (6 bytes: ms since the Unix epoch, big-endian) | random (24 bytes) | tag (16 bytes),
// the tag being the first 16 bytes of HMAC-SHA256 under KEY_SIGNING_SECRET over "sk2" and the first
// 30 bytes. The Worker checks the tag before it reads any database, so a forged or mangled key costs
// no query; the issue time, covered by the tag, tells a key issued a moment ago (which a replica may
// not have yet) from any other. Keys issued before signing ("sk_" and 43 base64url characters) stay
// valid: they carry no tag and are looked up as they were.

export const SIGNED_KEY_PREFIX = "sk2_";
const TAG_DOMAIN = "sk2";
const ISSUED_AT_BYTES = 6;
const RANDOM_BYTES = 24;
const TAG_BYTES = 16;
const SIGNED_BYTES = ISSUED_AT_BYTES + RANDOM_BYTES;
const PAYLOAD_BYTES = SIGNED_BYTES + TAG_BYTES;
const SIGNED_KEY = /^sk2_[A-Za-z0-9_-]{62}$/;
const LEGACY_KEY = /^sk_[A-Za-z0-9_-]{43}$/;

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

async function tagOf(secret, signed) {
  const message = new Uint8Array(TAG_DOMAIN.length + signed.length);
  message.set(encoder.encode(TAG_DOMAIN));
  message.set(signed, TAG_DOMAIN.length);
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

/** A new signed key, issued at `issuedAtMs`. */
export async function mintSignedKey(secret, issuedAtMs = Date.now()) {
  if (!secret) throw new Error("KEY_SIGNING_SECRET is not set: keys cannot be signed.");
  const signed = new Uint8Array(SIGNED_BYTES);
  let time = Math.floor(issuedAtMs);
  for (let i = ISSUED_AT_BYTES - 1; i >= 0; i--) {
    signed[i] = time % 256;
    time = Math.floor(time / 256);
  }
  signed.set(crypto.getRandomValues(new Uint8Array(RANDOM_BYTES)), ISSUED_AT_BYTES);
  const payload = new Uint8Array(PAYLOAD_BYTES);
  payload.set(signed);
  payload.set(await tagOf(secret, signed), SIGNED_BYTES);
  return SIGNED_KEY_PREFIX + toBase64Url(payload);
}

/**
 * What a presented key is, read without any database: "signed" (its tag verifies; issuedAtMs is
 * the issue time it carries), "legacy" (the format of keys issued before signing: only a lookup
 * tells) or "invalid" (neither: malformed, or a signed-looking key whose tag does not verify).
 */
export async function inspectKey(secret, key) {
  if (LEGACY_KEY.test(key)) return { format: "legacy" };
  if (!SIGNED_KEY.test(key) || !secret) return { format: "invalid" };
  const payload = fromBase64Url(key.slice(SIGNED_KEY_PREFIX.length));
  // One spelling per key: another base64url spelling of the same bytes is not the issued key.
  if (payload.length !== PAYLOAD_BYTES || toBase64Url(payload) !== key.slice(SIGNED_KEY_PREFIX.length)) return { format: "invalid" };
  const signed = payload.slice(0, SIGNED_BYTES);
  if (!sameBytes(await tagOf(secret, signed), payload.slice(SIGNED_BYTES))) return { format: "invalid" };
  let issuedAtMs = 0;
  for (let i = 0; i < ISSUED_AT_BYTES; i++) issuedAtMs = issuedAtMs * 256 + signed[i];
  return { format: "signed", issuedAtMs };
}

/** Whether a signed key issued at `issuedAtMs` may still be missing from a replica at `now`. */
export function isFreshlyIssued(issuedAtMs, now = Date.now()) {
  return Math.abs(now - issuedAtMs) <= FRESH_KEY_MS;
}
