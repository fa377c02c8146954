/**
 * The headers every answer carries, whatever answered it (a route, a problem, a static asset of the
 * console or the reference): set by `serve`, so no path can leave them out. wrangler.toml's
 * `run_worker_first = true` sends every request, assets included, through the Worker.
 */

/** Never sniffed as another type, never framed (a page elsewhere could overlay the sign-in form), no Referer from our pages. */
const EVERY_ANSWER: Record<string, string> = {
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
};

/**
 * The console's and the reference's pages: scripts, styles and calls of this origin only (no inline
 * script or style, no eval), images also as data: URLs (the reference's icons), never framed.
 */
export const PAGE_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

/** Anything else is data, never a page: nothing in it may load or run, even if a browser opens it. */
export const DATA_POLICY = "default-src 'none'; frame-ancestors 'none'";

const PAGE_ROOTS = ["/console", "/docs"];

function isPage(pathname: string): boolean {
  return PAGE_ROOTS.some((root) => pathname === root || pathname.startsWith(`${root}/`));
}

/** Sets the security headers on an answer to a request for `pathname` (its headers must be mutable). */
export function setSecurityHeaders(headers: Headers, pathname: string): void {
  for (const [name, value] of Object.entries(EVERY_ANSWER)) headers.set(name, value);
  headers.set("content-security-policy", isPage(pathname) ? PAGE_POLICY : DATA_POLICY);
}
