import { expect } from "vitest";
import type { ApiResponse, ProblemBody } from "./client";

/** Text that must never reach a client: SQL, driver errors, stack frames. */
const LEAK_PATTERNS = [
  /\bselect\b[\s\S]*\bfrom\b/i,
  /\binsert into\b/i,
  /\bupdate \w+ set\b/i,
  /\bdelete from\b/i,
  /SQLITE_/i,
  /D1_ERROR/i,
  /constraint failed/i,
  /no such (table|column)/i,
  /\n\s+at /,
  /\.(ts|js):\d+/,
];

/** A problem+json answer: right status and code, requestId = x-request-id, nothing internal leaked. */
export function expectCleanProblem(response: ApiResponse, status?: number) {
  if (status !== undefined) expect(response.status, response.text.slice(0, 300)).toBe(status);
  expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  expect(typeof response.body).toBe("object");
  const body = response.body as ProblemBody;
  expect(body.status).toBe(response.status);
  expect(typeof body.code).toBe("string");
  expect(body.type).toBe(`https://errors.example/${body.code}`);
  expect(typeof body.title).toBe("string");
  expect(body.requestId).toBeTruthy();
  expect(body.requestId).toBe(response.headers.get("x-request-id"));
  expectNoInternals(response.text);
  return body;
}

export function expectNoInternals(text: string) {
  for (const pattern of LEAK_PATTERNS) expect(text, `response leaks ${pattern}`).not.toMatch(pattern);
}
