/** The error catalogue: every problem the API can answer, by code (each route declares the ones it can answer). */
export const ERROR_CATALOGUE = {
  validation_failed: { status: 400, title: "Request is not valid" },
  invalid_next_token: { status: 400, title: "nextToken does not match this list" },
  unauthorized: { status: 401, title: "Missing or unknown credentials" },
  client_mismatch: { status: 403, title: "svc-client does not match the key's role" },
  forbidden: { status: 403, title: "Not allowed for this role" },
  account_not_permitted: { status: 403, title: "Account is not one of the caller's" },
  account_not_attached: { status: 403, title: "Account is not attached to this Operation" },
  not_found: { status: 404, title: "Resource not found" },
  version_not_found: { status: 404, title: "The Operation has no such version in its history" },
  method_not_allowed: { status: 405, title: "Method not allowed on this resource" },
  operation_not_draft: { status: 409, title: "Operation is not in DRAFT" },
  operation_not_private: { status: 409, title: "Operation is not PRIVATE" },
  operation_has_links: { status: 409, title: "Operation has linked carts or orders" },
  invalid_transition: { status: 409, title: "Status transition not allowed" },
  duplicate_scope: { status: 409, title: "A Quotas Rule with this scope exists" },
  rule_exists: { status: 409, title: "The Quotas Rule exists: only a deleted rule can be restored" },
  duplicate_code: { status: 409, title: "Operation code already used in this tenant" },
  operation_not_open: { status: 409, title: "Operation is not open for carts and orders" },
  cart_already_ordered: { status: 409, title: "This cart has already been ordered" },
  approval_required: { status: 409, title: "Approvals missing for activation" },
  idempotency_in_progress: { status: 409, title: "A request with this Idempotency-Key is still running" },
  idempotency_answer_lost: { status: 409, title: "The request with this Idempotency-Key was carried out, but its answer was lost" },
  move_in_progress: { status: 409, title: "Another move of this tenant is unfinished" },
  allocation_exceeded: { status: 409, title: "More than is left of a line's pool or of the account's cap" },
  allocation_below_ordered: { status: 409, title: "A pool or cap below what is already ordered" },
  version_mismatch: { status: 412, title: "Not the current version" },
  batch_too_large: { status: 413, title: "Batch larger than its limit" },
  payload_too_large: { status: 413, title: "Request body larger than 8 MiB" },
  unsupported_media_type: { status: 415, title: "Body must be application/json" },
  line_bounds_invalid: { status: 422, title: "Line bounds are not valid" },
  unknown_accounts: { status: 422, title: "Accounts not in the directory" },
  unknown_variants: { status: 422, title: "Variants that are not lines of the Operation" },
  order_lines_invalid: { status: 422, title: "Order lines are not valid for this Operation" },
  quota_min_not_met: { status: 422, title: "Order below the effective minimum" },
  idempotency_key_reused: { status: 422, title: "Idempotency-Key reused with a different request" },
  too_many_webhooks: { status: 422, title: "The tenant has as many webhooks as allowed" },
  delivery_pending: { status: 409, title: "The delivery is still being attempted" },
  rate_limited: { status: 429, title: "Too many requests for this key" },
  internal: { status: 500, title: "Internal error" },
  tenant_moving: { status: 503, title: "The tenant is being moved; writes resume shortly" },
  service_misconfigured: { status: 503, title: "The deployment lacks a setting it needs to serve" },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export interface ProblemItem {
  index?: number;
  field?: string;
  code: string;
  message: string;
  [extra: string]: unknown;
}

/** Everything a problem body may carry beyond the standard members. */
export interface ProblemExtras {
  errors?: ProblemItem[];
  [extra: string]: unknown;
}

/** A failure the API answers on purpose. Plain data, so it can cross a Durable Object RPC boundary. */
export interface Problem {
  code: ErrorCode;
  detail: string;
  extras?: ProblemExtras;
  headers?: Record<string, string>;
  /** The status when not the catalogue's: set by a route that answers this code otherwise (RouteSpec.errorStatuses). */
  status?: number;
}

/** The status `problem` answers: its own when a route set one, else its code's. */
export function statusOf(problem: Problem): number {
  return problem.status ?? ERROR_CATALOGUE[problem.code].status;
}

export class ApiError extends Error {
  readonly problem: Problem;
  constructor(code: ErrorCode, detail: string, extras?: ProblemExtras, headers?: Record<string, string>) {
    super(detail);
    this.problem = { code, detail, extras, headers };
  }
  static from(problem: Problem): ApiError {
    const error = new ApiError(problem.code, problem.detail, problem.extras, problem.headers);
    if (problem.status !== undefined) error.problem.status = problem.status;
    return error;
  }
  get status(): number {
    return statusOf(this.problem);
  }
}

export const PROBLEM_TYPE_BASE = "https://errors.example/";

/** RFC 9457's members: a problem's extras never overwrite them. */
const RESERVED_MEMBERS = new Set(["type", "title", "status", "detail", "instance", "code", "requestId"]);

export function problemBody(problem: Problem, requestId: string): Record<string, unknown> {
  const entry = ERROR_CATALOGUE[problem.code];
  const extras = Object.fromEntries(Object.entries(problem.extras ?? {}).filter(([name]) => !RESERVED_MEMBERS.has(name)));
  return {
    type: PROBLEM_TYPE_BASE + problem.code,
    title: entry.title,
    status: statusOf(problem),
    code: problem.code,
    detail: problem.detail,
    requestId,
    ...extras,
  };
}

/** The problem+json answer of `problem` (a request's: problemResponse in platform/http/problem-response.ts). */
export function problemResponseFor(problem: Problem, requestId: string): Response {
  const status = statusOf(problem);
  const headers: Record<string, string> = {
    "content-type": "application/problem+json",
    "x-request-id": requestId,
    ...problem.headers,
  };
  return new Response(JSON.stringify(problemBody(problem, requestId)), { status, headers });
}

/** What an unexpected failure answers: no SQL, no stack, just a requestId to quote. */
export const INTERNAL_PROBLEM: Problem = {
  code: "internal",
  detail: "Something went wrong on our side; quote the requestId if you report it.",
};

/** Logs an unexpected failure with its stack (never sent to the client). */
export function logFailure(requestId: string, where: string, error: unknown): void {
  console.error(JSON.stringify({ requestId, where, error: String(error), stack: (error as Error)?.stack }));
}
