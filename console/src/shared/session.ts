import { ApiProblem, createClient, type ApiClient, type paths, type Problem } from "@campaign-policy/client";
import { t } from "./i18n";

export type Role = "OPERATOR" | "ACCOUNT";
export interface Session {
  apiKey: string;
  role: Role;
}

// sessionStorage only: the key lives as long as the tab and never enters a URL.
const STORAGE_KEY = "campaign-console-session";

export function loadSession(): Session | null {
  try {
    const raw = sessionStorage.getItem(STORAGE_KEY);
    const parsed = raw ? (JSON.parse(raw) as Session) : null;
    return parsed && typeof parsed.apiKey === "string" && (parsed.role === "OPERATOR" || parsed.role === "ACCOUNT") ? parsed : null;
  } catch {
    return null;
  }
}

export function saveSession(session: Session | null) {
  if (session) sessionStorage.setItem(STORAGE_KEY, JSON.stringify(session));
  else sessionStorage.removeItem(STORAGE_KEY);
}

/** The typed client for a session: same origin as the console, bookmarks carried so reads see this tab's writes. */
export function clientFor(session: Session): ApiClient {
  return createClient({ baseUrl: location.origin, apiKey: session.apiKey, client: session.role, idempotency: true, onDeprecation: () => {} });
}

/** What the API refused, as the console shows it. */
export interface Refusal {
  status: number;
  problem: Problem;
}

export function toRefusal(error: unknown): Refusal {
  if (error instanceof ApiProblem) return { status: error.status, problem: error.problem ?? { code: "unknown", title: error.message } };
  return {
    status: 0,
    problem: { code: "network", title: t("problem.network"), detail: error instanceof Error ? error.message : String(error) } as unknown as Problem,
  };
}

/** An openapi-fetch answer turned into its data, or a thrown ApiProblem carrying the problem body. */
export async function answer<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<{ data: T; response: Response }> {
  const { data, error, response } = await call;
  if (error !== undefined || !response.ok) throw new ApiProblem(response.status, (error ?? { code: "unknown", title: response.statusText }) as Problem);
  return { data: data as T, response };
}

/** The query a GET of `P` takes. */
export type QueryOf<P extends keyof paths> = paths[P] extends { get: { parameters: { query?: infer Query } } } ? NonNullable<Query> : never;

/** A value of a list's `sort` query. */
export type SortOf<P extends keyof paths> = QueryOf<P> extends { sort?: (infer Sort)[] } ? Sort : never;

/** The parts of a request that send `text` as a CSV file (the bulk PUTs take text/csv as well as JSON). */
export const csvBody = (text: string) => ({
  body: text as never,
  bodySerializer: (body: unknown) => body as string,
  headers: { "content-type": "text/csv" },
});

/** The parts of a request that read its answer as CSV (the lists export with Accept: text/csv). */
export const csvAnswer = { headers: { accept: "text/csv" }, parseAs: "text" } as const;
