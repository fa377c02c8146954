import type { Context } from "hono";

export function withVersionHeaders(c: Context, version: number): void {
  c.header("ETag", `"${version}"`);
}
