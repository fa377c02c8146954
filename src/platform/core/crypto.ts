const encoder = new TextEncoder();

export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", encoder.encode(text));
  return toHex(new Uint8Array(digest));
}

// Every list request signs at least once: import each secret once per isolate, not per call.
// Only the finished key is kept (plain data): a pending import is one request's I/O.
const hmacKeys = new Map<string, CryptoKey>();

async function hmacKey(secret: string): Promise<CryptoKey> {
  const cached = hmacKeys.get(secret);
  if (cached) return cached;
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  // Bounded: one entry per configured secret (a rotation adds one).
  if (hmacKeys.size >= 8) hmacKeys.clear();
  hmacKeys.set(secret, key);
  return key;
}

/** A short HMAC-SHA256 tag (128 bits, base64url): enough to make a token unforgeable. */
export async function hmacSha256(secret: string, text: string): Promise<string> {
  const key = await hmacKey(secret);
  return toBase64Url(new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(text)))).slice(0, 22);
}

/**
 * The whole HMAC-SHA256 in lower-case hex, the form signature headers carry. Its key is imported
 * per call, not cached: each webhook has a secret of its own, and they would crowd the few cached
 * keys every list request signs with out of the cache.
 */
export async function hmacSha256Hex(secret: string, text: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return toHex(new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(text))));
}

/** Compares two strings without an early exit, so timing does not reveal a matching prefix. */
export function timingSafeEqual(a: string, b: string): boolean {
  const left = encoder.encode(a);
  const right = encoder.encode(b);
  let diff = left.length ^ right.length;
  for (let i = 0; i < Math.max(left.length, right.length); i++) diff |= (left[i] ?? 0) ^ (right[i] ?? 0);
  return diff === 0;
}

export function randomSecret(bytes = 32): string {
  return toBase64Url(crypto.getRandomValues(new Uint8Array(bytes)));
}

function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export function toBase64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function base64UrlEncodeText(text: string): string {
  return toBase64Url(encoder.encode(text));
}

export function base64UrlDecodeText(value: string): string {
  const padded = value.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((value.length + 3) % 4);
  const binary = atob(padded);
  return new TextDecoder().decode(Uint8Array.from(binary, (ch) => ch.charCodeAt(0)));
}
