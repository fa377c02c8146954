import type { Context } from "hono";

/** The answer's ETag: the Operation's version, quoted, which is what If-Match is compared with. */
export function setETag(c: Context, version: number): void {
  c.header("ETag", `"${version}"`);
}
