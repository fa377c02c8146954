/**
 * Where webhooks may be sent. A subscription must not turn the API into a way of calling hosts on
 * a private network (server-side request forgery): only https:// to public addresses, unless the
 * instance allows local receivers (WEBHOOKS_ALLOW_LOCAL=on, the default of `npm start`), which adds
 * http(s)://127.0.0.1 and http(s)://localhost.
 */

const LOCAL_HOSTS = new Set(["127.0.0.1", "localhost"]);
const PRIVATE_NAME_SUFFIXES = [".localhost", ".local", ".internal", ".home.arpa", ".lan"];

/** IPv4 ranges that are not public destinations: [first octets as a 32-bit number, prefix length]. */
const NON_PUBLIC_V4: [string, number][] = [
  ["0.0.0.0", 8], // this network
  ["10.0.0.0", 8], // private
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local (cloud metadata services live here)
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // protocol assignments
  ["192.168.0.0", 16], // private
  ["198.18.0.0", 15], // benchmarking
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
];

/** A host made only of numbers and dots is an IPv4 address to a resolver, in any of inet_aton's spellings. */
const NUMERIC_HOST = /^(0x[0-9a-f]*|\d+)(\.(0x[0-9a-f]*|\d+)){0,3}\.?$/;

/**
 * The 32-bit value of an IPv4 host written any way inet_aton reads it (127.0.0.1, 2130706433,
 * 0x7f000001, 0177.1): not every URL parser rewrites these to dotted quads, and resolvers accept them.
 */
function v4Number(host: string): number | undefined {
  if (!NUMERIC_HOST.test(host)) return undefined;
  const parts = host
    .replace(/\.$/, "")
    .split(".")
    .map((part) => (/^0x/.test(part) ? parseInt(part.slice(2) || "0", 16) : /^0\d/.test(part) ? parseInt(part, 8) : Number(part)));
  if (parts.some((part) => Number.isNaN(part))) return Number.NaN;
  const last = parts.pop()!;
  if (parts.some((part) => part > 255) || last >= 256 ** (4 - parts.length)) return Number.NaN;
  return parts.reduce((value, part, i) => value + part * 256 ** (3 - i), 0) + last;
}

/** The ranges as [first address, size], worked out once. */
const NON_PUBLIC_V4_RANGES = NON_PUBLIC_V4.map(([base, bits]) => [v4Number(base)!, 2 ** (32 - bits)] as const);

function isNonPublicV4(value: number): boolean {
  return NON_PUBLIC_V4_RANGES.some(([first, size]) => value >= first && value < first + size);
}

/** The eight 16-bit groups of an IPv6 literal as the URL parser writes it (compressed, lower-case hex). */
function v6Groups(address: string): number[] | undefined {
  const [head, tail] = address.includes("::") ? address.split("::") : [address, undefined];
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  if (tail === undefined && left.length !== 8) return undefined;
  const groups = [...left, ...Array(8 - left.length - right.length).fill("0"), ...right];
  if (groups.length !== 8 || !groups.every((group) => /^[0-9a-f]{1,4}$/.test(group))) return undefined;
  return groups.map((group) => parseInt(group, 16));
}

/**
 * The IPv4 address an IPv6 address carries by a translation scheme, as a 32-bit number: a resolver
 * or a relay on the way reaches that IPv4 host, so its rule decides.
 */
function embeddedV4(groups: number[]): number | undefined {
  const v4 = (high: number, low: number) => (high * 65536 + low) >>> 0;
  const [first, second] = groups;
  const zeros = (from: number, to: number) => groups.slice(from, to).every((group) => group === 0);
  if (zeros(0, 5) && groups[5] === 0xffff) return v4(groups[6], groups[7]); // IPv4-mapped ::ffff:0:0/96
  if (zeros(0, 6)) return v4(groups[6], groups[7]); // IPv4-compatible ::/96
  if (first === 0x64 && second === 0xff9b && zeros(2, 6)) return v4(groups[6], groups[7]); // NAT64 64:ff9b::/96
  if (first === 0x64 && second === 0xff9b && groups[2] === 1) return v4(groups[6], groups[7]); // local-use NAT64 64:ff9b:1::/48
  if (first === 0x2002) return v4(groups[1], groups[2]); // 6to4 2002::/16
  if (first === 0x2001 && second === 0) return (v4(groups[6], groups[7]) ^ 0xffffffff) >>> 0; // Teredo 2001::/32: the client, inverted
  return undefined;
}

function isNonPublicV6(groups: number[]): boolean {
  const [first] = groups;
  if (groups.slice(0, 7).every((group) => group === 0) && groups[7] <= 1) return true; // :: and ::1
  if ((first & 0xfe00) === 0xfc00) return true; // unique local fc00::/7
  if ((first & 0xffc0) === 0xfe80) return true; // link-local fe80::/10
  if ((first & 0xff00) === 0xff00) return true; // multicast
  const v4 = embeddedV4(groups);
  return v4 !== undefined && isNonPublicV4(v4);
}

/** Why `raw` may not receive webhooks, or undefined when it may. */
export function webhookUrlProblem(raw: string, allowLocal: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "must be an absolute URL";
  }
  if (url.username || url.password) return "must not carry credentials";
  // A trailing dot names the same host ("localhost." is localhost): rules are checked without it,
  // and the local allowance stays the exact names it lists.
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  if (allowLocal && url.hostname === host && LOCAL_HOSTS.has(host) && (url.protocol === "http:" || url.protocol === "https:")) return undefined;
  if (url.protocol !== "https:") return allowLocal ? "must be https:// (or http://127.0.0.1 / http://localhost)" : "must be https://";
  const refused = "must not be a private, loopback or link-local address";
  if (host === "localhost" || PRIVATE_NAME_SUFFIXES.some((suffix) => host.endsWith(suffix))) return refused;
  const v4 = v4Number(host);
  if (v4 !== undefined) return Number.isNaN(v4) || isNonPublicV4(v4) ? refused : undefined;
  if (host.startsWith("[")) {
    const groups = v6Groups(host.slice(1, -1));
    return !groups || isNonPublicV6(groups) ? refused : undefined;
  }
  if (!host.includes(".")) return "must name a public host (a single-label name only resolves on a private network)";
  return undefined;
}
