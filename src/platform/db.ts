import { and, getTableName, is, SQL, sql, type SQLWrapper } from "drizzle-orm";
import { SQLiteAsyncDialect, type AnySQLiteColumn, type SQLiteTable } from "drizzle-orm/sqlite-core";
import { drizzle, type DrizzleD1Database } from "drizzle-orm/d1";
import { writeGuards } from "./tables";
import { ApiError } from "./errors";
import type { SessionStart } from "./bookmarks";
import type { ShardName } from "./shards";
import { countRoundTrip, noteBookmark, type RequestTrace } from "./trace";

export type Db = DrizzleD1Database & { $client: D1Database };

/** D1's per-statement limits (Cloudflare docs). Local D1 does not enforce them. */
export const D1_MAX_BOUND_PARAMETERS = 100;
export const D1_MAX_SQL_BYTES = 100_000;
export const D1_MAX_VALUE_BYTES = 2_000_000;
/** Stay well under D1's 2 MB limit for one bound string/blob value. */
export const D1_MAX_JSON_PARAMETER_BYTES = 1_500_000;

export class D1LimitExceeded extends Error {}

function checkStatement(query: string, params: number): void {
  if (params > D1_MAX_BOUND_PARAMETERS) {
    throw new D1LimitExceeded(`statement binds ${params} parameters (limit ${D1_MAX_BOUND_PARAMETERS})`);
  }
  const bytes = new TextEncoder().encode(query).length;
  if (bytes > D1_MAX_SQL_BYTES) throw new D1LimitExceeded(`statement is ${bytes} bytes of SQL (limit ${D1_MAX_SQL_BYTES})`);
}

/**
 * Wraps a D1 binding so every statement is checked against the production limits.
 * Tests turn it on (D1_LIMITS_GUARD=on) because the local simulator accepts larger statements.
 */
export function guardD1Limits(d1: D1Database): D1Database {
  const wrapStatement = (statement: D1PreparedStatement, query: string): D1PreparedStatement =>
    new Proxy(statement, {
      get(target, prop, receiver) {
        if (prop === "bind") {
          return (...values: unknown[]) => {
            checkStatement(query, values.length);
            for (const value of values) {
              if (typeof value === "string" && value.length > 500_000 && new TextEncoder().encode(value).length > D1_MAX_VALUE_BYTES) {
                throw new D1LimitExceeded(`a bound value exceeds D1's ${D1_MAX_VALUE_BYTES}-byte value limit`);
              }
            }
            return wrapStatement(target.bind(...values), query);
          };
        }
        const value = Reflect.get(target, prop, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  return new Proxy(d1, {
    get(target, prop, receiver) {
      if (prop === "prepare") {
        return (query: string) => {
          checkStatement(query, 0);
          return wrapStatement(target.prepare(query), query);
        };
      }
      if (prop === "batch") {
        // Statements were already checked when prepared through this proxy; unwrap is not needed.
        return (statements: D1PreparedStatement[]) => target.batch(statements);
      }
      if (prop === "withSession") {
        // A session prepares statements too: they get the same checks.
        return (start?: string) => guardD1Limits((target as D1Database).withSession(start) as unknown as D1Database);
      }
      const value = Reflect.get(target, prop, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** A database of the Worker: the control database, or a tenant shard. */
export type DatabaseName = "CONTROL" | ShardName;

/** The bindings a database handle is made from (the Worker's env, or a Durable Object's). */
export type DatabaseBindings = { CONTROL: D1Database; D1_LIMITS_GUARD?: string } & { [shard: ShardName]: D1Database };

export function d1(env: DatabaseBindings, name: DatabaseName): D1Database {
  const database = env[name];
  if (!database) throw new Error(`no D1 binding named ${name}`);
  return env.D1_LIMITS_GUARD === "on" ? guardD1Limits(database) : database;
}

/** The two ways a D1 binding or session makes round trips. */
export interface D1Preparer {
  prepare(query: string): D1PreparedStatement;
  batch<T>(statements: D1PreparedStatement[]): Promise<D1Result<T>[]>;
}

/** Runs one round trip; `queries` are the SQL of the statement, or of every statement of a batch. */
export type AroundRoundTrip = <T>(queries: string[], call: () => Promise<T>) => Promise<T>;

const UNWRAPPED = Symbol("the statement under interceptRoundTrips");
const QUERY = Symbol("the statement's SQL");
type Intercepted = D1PreparedStatement & { [UNWRAPPED]?: D1PreparedStatement; [QUERY]?: string };

/**
 * `target`'s prepare and batch with every round trip (a statement's first/all/run/raw, a batch)
 * run through `around`: what the request trace counts with, and what the bench delays.
 */
export function interceptRoundTrips(target: D1Preparer, around: AroundRoundTrip): D1Preparer {
  const wrap = (statement: D1PreparedStatement, query: string): D1PreparedStatement =>
    new Proxy(statement, {
      get(inner, prop) {
        if (prop === UNWRAPPED) return inner;
        if (prop === QUERY) return query;
        if (prop === "bind") return (...values: unknown[]) => wrap(inner.bind(...values), query);
        if (prop === "first" || prop === "all" || prop === "run" || prop === "raw") {
          return (...args: unknown[]) => around([query], () => (inner[prop] as (...a: unknown[]) => Promise<unknown>).apply(inner, args));
        }
        const value = Reflect.get(inner, prop, inner);
        return typeof value === "function" ? value.bind(inner) : value;
      },
    });
  return {
    prepare: (query) => wrap(target.prepare(query), query),
    batch: <T>(statements: D1PreparedStatement[]) =>
      around(
        statements.map((statement) => (statement as Intercepted)[QUERY] ?? ""),
        () => target.batch<T>(statements.map((statement) => (statement as Intercepted)[UNWRAPPED] ?? statement)),
      ),
  };
}

/**
 * A D1 session (Sessions API) whose every call is counted on `trace` and whose bookmark the trace
 * follows. Reads in a session started unconstrained may be served by a replica; writes always go to
 * the primary; a session started from a bookmark sees every write up to it.
 */
function tracedSession(database: D1Database, start: SessionStart, trace: RequestTrace, followBookmark: boolean): D1Database {
  // Started on first use: a request that reads nothing (a health check, a refused call) touches no binding.
  let started: D1DatabaseSession | undefined;
  const session = () => (started ??= database.withSession(start));
  const getBookmark = () => started?.getBookmark() ?? null;
  const traced = interceptRoundTrips(
    { prepare: (query) => session().prepare(query), batch: (statements) => session().batch(statements) },
    async (_queries, call) => {
      try {
        return await countRoundTrip(trace, call);
      } finally {
        if (followBookmark) noteBookmark(trace, getBookmark());
      }
    },
  );
  // drizzle only prepares and batches; bookmarkOf reads getBookmark.
  return { ...traced, getBookmark } as unknown as D1Database;
}

/**
 * A database as one request (or one Durable Object command) sees it: a D1 session started at
 * `start`, counted on `trace`. Made per request: a session belongs to its request. Without a
 * schema, a drizzle handle costs next to nothing to build. The trace follows the bookmark of a
 * tenant shard (what x-d1-bookmark carries), never the control database's.
 */
export function openDb(env: DatabaseBindings, name: DatabaseName, start: SessionStart, trace: RequestTrace): Db {
  return drizzle(tracedSession(d1(env, name), start, trace, name !== "CONTROL")) as Db;
}

/** The bookmark of the latest write or read the handle's session made (null when it made none, or is not a session). */
export function bookmarkOf(db: Db): string | null {
  const client = db.$client as unknown as Partial<D1DatabaseSession>;
  return client.getBookmark?.() ?? null;
}

/** A handle for work outside any request (the cron's housekeeping, a tenant move): on the primary. */
export function primaryDb(env: DatabaseBindings, name: DatabaseName): Db {
  return drizzle(d1(env, name)) as Db;
}

const utf8 = new TextEncoder();
const NON_ASCII = /[^\x00-\x7f]/;

/** The UTF-8 size of a JSON text (what D1 counts); ASCII, the usual case, needs no encoding. */
function utf8Bytes(text: string): number {
  return NON_ASCII.test(text) ? utf8.encode(text).length : text.length;
}

/** Splits items into JSON arrays each under the D1 value limit (in UTF-8 bytes), for `json_each(?)` statements. */
export function jsonChunks<T>(items: readonly T[], maxBytes = D1_MAX_JSON_PARAMETER_BYTES): string[] {
  return jsonTextChunks(items.map((item) => JSON.stringify(item)), maxBytes);
}

/** jsonChunks of items that are JSON texts already (rows read as `json_array(…)`). An empty list is one empty array. */
export function jsonTextChunks(encoded: readonly string[], maxBytes = D1_MAX_JSON_PARAMETER_BYTES): string[] {
  const chunks: string[] = [];
  let current: string[] = [];
  let size = 2;
  for (const text of encoded) {
    const bytes = utf8Bytes(text);
    if (current.length && size + bytes + 1 > maxBytes) {
      chunks.push(`[${current.join(",")}]`);
      current = [];
      size = 2;
    }
    current.push(text);
    size += bytes + 1;
  }
  if (current.length || !chunks.length) chunks.push(`[${current.join(",")}]`);
  return chunks;
}

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

/**
 * `expr IN (values)` bound as one JSON parameter, so a long list never breaks D1's
 * 100-parameter limit; SQLite still uses an index on `expr`.
 */
export function inJsonList(expression: SQLWrapper, values: readonly (string | number)[]): SQL {
  return inJsonArray(expression, JSON.stringify(values));
}

function inJsonArray(expression: SQLWrapper, jsonArray: string): SQL {
  return sql`${expression} in (select value from json_each(${jsonArray}))`;
}

/**
 * `expression IN` a list too long for one bound value (a 5000-key batch): one condition per
 * `jsonChunks` chunk, each for a statement of its own (usually there is one).
 */
export function inJsonChunks(expression: SQLWrapper, values: readonly (string | number)[]): SQL[] {
  return jsonChunks(values).map((chunk) => inJsonArray(expression, chunk));
}

/** Runs `select` once per `inJsonChunks` condition over `keys` (in parallel) and joins the rows. */
export async function selectInChunks<Row>(
  expression: SQLWrapper,
  keys: readonly (string | number)[],
  select: (keyIsIn: SQL) => Promise<Row[]>,
): Promise<Row[]> {
  return (await Promise.all(inJsonChunks(expression, keys).map(select))).flat();
}

/** Which of `keys` exist as `keyColumn` in the rows `where` selects (one json_each query per 1.5 MB of keys). */
export async function existingKeys(db: Db, keyColumn: AnySQLiteColumn, keys: readonly string[], where: SQL | undefined): Promise<Set<string>> {
  const rows = await selectInChunks(keyColumn, keys, (keyIsIn) =>
    db
      .select({ key: sql<string>`${keyColumn}` })
      .from(keyColumn.table)
      .where(and(where, keyIsIn)),
  );
  return new Set(rows.map((row) => row.key));
}

/** Anything one batch can hold: a drizzle query builder or a raw `sql` statement. */
export type Statement = SQL | { toSQL(): { sql: string; params: unknown[] } };

const dialect = new SQLiteAsyncDialect();

/** The SQL text of a query built from the schema objects, for statements prepared on the raw binding (`?` marks a parameter). */
export function sqlText(query: SQL): string {
  return dialect.sqlToQuery(query).sql;
}

/** A field of the current `json_each` row: `value ->> n` of a tuple, or the whole `value`. */
export function jsonField(index?: number): SQL {
  return sql.raw(index === undefined ? "value" : `value ->> ${index}`);
}

const columnNames = (columns: readonly AnySQLiteColumn[]) => sql.join(columns.map((column) => sql.identifier(column.name)), sql`, `);

/**
 * One statement that inserts every row of a JSON array (one bound parameter, whatever the row
 * count): `values` gives each column its SQL (a `jsonField` of the row, or a constant). With
 * `onConflict`, a row whose `target` key exists updates the `update` columns (none: it is skipped).
 * Column names come from the schema objects, never from literals.
 */
export function insertFromJson(
  table: SQLiteTable,
  rows: string,
  values: readonly (readonly [AnySQLiteColumn, unknown])[],
  onConflict?: { target: readonly AnySQLiteColumn[]; update?: readonly AnySQLiteColumn[] },
): SQL {
  const selected = sql.join(values.map(([, value]) => (is(value, SQL) ? value : sql`${value}`)), sql`, `);
  let conflict = sql``;
  if (onConflict) {
    const update = onConflict.update ?? [];
    conflict = update.length
      ? sql` on conflict (${columnNames(onConflict.target)}) do update set ${sql.join(
          update.map((column) => sql`${sql.identifier(column.name)} = excluded.${sql.identifier(column.name)}`),
          sql`, `,
        )}`
      : sql` on conflict (${columnNames(onConflict.target)}) do nothing`;
  }
  return sql`insert into ${table} (${columnNames(values.map(([column]) => column))}) select ${selected} from json_each(${rows}) where true${conflict}`;
}

function compile(statement: Statement): { sql: string; params: unknown[] } {
  return is(statement, SQL) ? dialect.sqlToQuery(statement) : statement.toSQL();
}

/**
 * Runs statements as one D1 batch (one transaction). Used instead of drizzle's batch, which
 * cannot carry raw statements with parameters.
 */
export async function runBatch(db: Db, statements: Statement[]): Promise<D1Result[]> {
  const client = db.$client;
  return client.batch(
    statements.map((statement) => {
      const query = compile(statement);
      return client.prepare(query.sql).bind(...query.params);
    }),
  );
}

/**
 * A statement that aborts its batch unless `condition` holds at that point of the transaction:
 * the SQL-side re-check behind every Durable Object command.
 */
export function writeGuard(condition: SQL): SQL {
  return sql`insert into ${writeGuards} (${sql.identifier(writeGuards.ok.name)}) select 0 where not (${condition})`;
}
