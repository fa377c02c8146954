/*
 * What a failed D1 statement broke, read from SQLite's message: the one place that parses it.
 */
import { getTableName } from "drizzle-orm";
import type { AnySQLiteColumn } from "drizzle-orm/sqlite-core";
import { writeGuards } from "./tables";

/**
 * The constraint a failed statement broke. D1 reports SQLite's message and no code, so this is the
 * one place that reads it: "UNIQUE constraint failed: t.a, t.b" (or "index 'name'" for an
 * expression index) and "CHECK constraint failed: <expression>".
 */
export type ConstraintFailure = { kind: "unique"; columns: string[]; index: string | null } | { kind: "check"; expression: string };

/** What a D1 failure says: its message and its cause's (SQLite's own words are in one or the other). */
export function d1ErrorText(error: unknown): string {
  return error instanceof Error ? `${error.message}\n${String((error as { cause?: unknown }).cause ?? "")}` : String(error);
}

export function constraintFailure(error: unknown): ConstraintFailure | null {
  const text = d1ErrorText(error);
  const unique = /UNIQUE constraint failed: (?:index '([^']+)'|([\w.]+(?:, [\w.]+)*))/.exec(text);
  if (unique) return { kind: "unique", index: unique[1] ?? null, columns: unique[2] ? unique[2].split(", ") : [] };
  const check = /CHECK constraint failed: ([^\n:]+)/.exec(text);
  if (check) return { kind: "check", expression: check[1].trim() };
  return null;
}

/** Whether `error` broke the unique key made of exactly these columns (in any order). */
export function violatesUnique(error: unknown, ...columns: AnySQLiteColumn[]): boolean {
  const failure = constraintFailure(error);
  if (failure?.kind !== "unique") return false;
  const expected = columns.map((column) => `${getTableName(column.table)}.${column.name}`).sort();
  return failure.columns.length === expected.length && [...failure.columns].sort().every((name, i) => name === expected[i]);
}

/** Whether `error` broke the unique index of this name (an expression index names no columns). */
export function violatesUniqueIndex(error: unknown, index: string): boolean {
  const failure = constraintFailure(error);
  return failure?.kind === "unique" && failure.index === index;
}

/** Whether a batch was aborted by its writeGuard: the state it depended on changed. */
export function isWriteGuardFailure(error: unknown): boolean {
  const failure = constraintFailure(error);
  return failure?.kind === "check" && (failure.expression === "ok = 1" || failure.expression.startsWith(getTableName(writeGuards)));
}
