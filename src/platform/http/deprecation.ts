import type { Context, MiddlewareHandler } from "hono";
import type * as z from "zod";

/**
 * A form of the API kept inside /v1 but no longer the one to use: announced in the OpenAPI document
 * (deprecated: true) and on every answer to a request that used it — Deprecation (RFC 9745), a Link
 * to the documentation, and Sunset (RFC 8594) once a date is set. Nothing is removed inside /v1.
 */
export interface Deprecation {
  /** When the deprecation was announced (YYYY-MM-DD). */
  since: string;
  /** What to use instead, as a reader would look it up ("ids", "PUT /v1/…"). */
  use: string;
  /** When the form stops answering (YYYY-MM-DD); at least 12 months after `since`. */
  sunset?: string;
}

/** A query parameter that is another name of `use`: the same effect, announced as deprecated. */
export function deprecatedAlias<T extends z.ZodType>(schema: T, deprecation: Deprecation): T {
  return schema.meta({ ...schema.meta(), deprecated: true, deprecation }) as T;
}

export function deprecationOf(schema: z.ZodType): Deprecation | undefined {
  return (schema.meta() as { deprecation?: Deprecation } | undefined)?.deprecation;
}

/** The sentence the document adds to a deprecated operation or parameter. */
export function deprecationNote(deprecation: Deprecation): string {
  return `Deprecated since ${deprecation.since}: use ${deprecation.use}.${deprecation.sunset ? ` Sunset ${deprecation.sunset}.` : ""} It keeps working inside /v1; answers carry Deprecation and Link headers.`;
}

function deprecationHeaders(deprecation: Deprecation, documentation: string): Record<string, string> {
  return {
    // RFC 9745: a structured-field date, seconds since the epoch.
    deprecation: `@${Math.floor(Date.parse(`${deprecation.since}T00:00:00Z`) / 1000)}`,
    link: `<${documentation}>; rel="deprecation"; type="text/html"`,
    ...(deprecation.sunset && { sunset: new Date(`${deprecation.sunset}T00:00:00Z`).toUTCString() }),
  };
}

/**
 * Marks the answers of a route whose every call is deprecated (`route`), or of calls that send one
 * of its deprecated query parameters, whatever the answer (a problem too). `documentation` is where
 * the operation is described (its place in /docs).
 */
export function announceDeprecations(options: {
  route?: Deprecation;
  queryAliases: [name: string, deprecation: Deprecation][];
  documentation: string;
}): MiddlewareHandler | undefined {
  const { route, queryAliases, documentation } = options;
  if (!route && !queryAliases.length) return undefined;
  const used = (c: Context) => route ?? queryAliases.find(([name]) => c.req.query(name) !== undefined)?.[1];
  return async (c, next) => {
    await next();
    const deprecation = used(c);
    if (!deprecation) return;
    for (const [name, value] of Object.entries(deprecationHeaders(deprecation, documentation))) c.res.headers.set(name, value);
  };
}
