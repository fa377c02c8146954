/*
 * The SQL-building side: statements that stay within D1's limits at any size (a list bound as one
 * JSON parameter, split into chunks under the value limit), bulk inserts over json_each, the
 * write guard, and the one way a list of statements runs as a transaction (runBatch).
 */
import { and, is, SQL, sql, type SQLWrapper } from "drizzle-orm";
import { SQLiteAsyncDialect, type AnySQLiteColumn, type SQLiteTable } from "drizzle-orm/sqlite-core";
import { D1_MAX_JSON_PARAMETER_BYTES, noteCommitted, type CommitFact, type Db } from "./database";
import { writeGuards } from "./tables";

const utf8 = new TextEncoder();
const NON_ASCII = /[\u0080-\uffff]/;

/** The UTF-8 size of a JSON text (what D1 counts); ASCII, the usual case, needs no encoding. */
function utf8Bytes(text: string): number {
  return NON_ASCII.test(text) ? utf8.encode(text).length : text.length;
}

/** Splits items into JSON arrays each under the D1 value limit (in UTF-8 bytes), for `json_each(?)` statements. */
export function jsonChunks<T>(items: readonly T[], maxBytes = D1_MAX_JSON_PARAMETER_BYTES): string[] {
  return sizedJsonChunks(items, maxBytes).map((chunk) => chunk.text);
}

/**
 * jsonChunks with how many items each chunk holds. Items that fit in one value, the usual case, are
 * encoded in one call and measured once; only a larger list is measured item by item.
 */
function sizedJsonChunks<T>(items: readonly T[], maxBytes: number): { text: string; count: number }[] {
  const whole = JSON.stringify(items);
  if (whole.length <= maxBytes && utf8Bytes(whole) <= maxBytes) return [{ text: whole, count: items.length }];
  return textChunks(
    items.map((item) => JSON.stringify(item)),
    maxBytes,
  );
}

/** jsonChunks of items that are JSON texts already (rows read as `json_array(…)`). An empty list is one empty array. */
export function jsonTextChunks(encoded: readonly string[], maxBytes = D1_MAX_JSON_PARAMETER_BYTES): string[] {
  return textChunks(encoded, maxBytes).map((chunk) => chunk.text);
}

function textChunks(encoded: readonly string[], maxBytes: number): { text: string; count: number }[] {
  const chunks: { text: string; count: number }[] = [];
  let current: string[] = [];
  let size = 2;
  for (const text of encoded) {
    const bytes = utf8Bytes(text);
    if (current.length && size + bytes + 1 > maxBytes) {
      chunks.push({ text: `[${current.join(",")}]`, count: current.length });
      current = [];
      size = 2;
    }
    current.push(text);
    size += bytes + 1;
  }
  if (current.length || !chunks.length) chunks.push({ text: `[${current.join(",")}]`, count: current.length });
  return chunks;
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

/**
 * A column of a bulk insert and where its value comes from: a function of each item (carried in
 * the items' JSON parameter), one value for every row (bound once per statement), or the item's
 * place in the list counted from `placeFrom` (read off json_each, carried by nothing). A function may
 * give a JSON object or array for a JSON text column: it travels inside the items' JSON and is
 * stored as its text (`value ->> n`), encoded once.
 */
export type JsonInsertColumn<Item> =
  | readonly [AnySQLiteColumn, (item: Item) => string | number | boolean | null | Record<string, unknown> | readonly unknown[]]
  | readonly [AnySQLiteColumn, SQL | string | number | boolean | null]
  | readonly [AnySQLiteColumn, { placeFrom: number }];

const columnNames = (columns: readonly AnySQLiteColumn[]) =>
  sql.join(
    columns.map((column) => sql.identifier(column.name)),
    sql`, `,
  );

/**
 * Inserts every item with one statement per `jsonChunks` chunk (usually one; none for no items):
 * each chunk is one bound parameter whatever the row count, so a statement binds the chunk and
 * the per-statement values only. Items travel as compact arrays of their per-item values (a bare
 * value when there is one), read back as `value ->> n`. With `onConflict`, a row whose `target`
 * key exists updates the `update` columns (none: it is skipped). Column names come from the
 * schema objects, never from literals.
 */
export function insertFromJson<Item>(
  table: SQLiteTable,
  items: readonly Item[],
  columns: readonly JsonInsertColumn<Item>[],
  onConflict?: { target: readonly AnySQLiteColumn[]; update?: readonly AnySQLiteColumn[] },
): SQL[] {
  if (!items.length) return [];
  const fields = columns.flatMap(([, value]) => (typeof value === "function" ? [value] : []));
  const encode: (item: Item) => unknown = fields.length === 1 ? fields[0] : (item) => fields.map((field) => field(item));
  const selected = (firstItem: number) => {
    let field = 0;
    return sql.join(
      columns.map(([, value]) => {
        if (typeof value === "function") return sql.raw(fields.length === 1 ? "value" : `value ->> ${field++}`);
        if (isPlace(value)) return sql`${value.placeFrom + firstItem} + key`;
        return is(value, SQL) ? value : sql`${value}`;
      }),
      sql`, `,
    );
  };
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
  const names = columnNames(columns.map(([column]) => column));
  let firstItem = 0;
  return sizedJsonChunks(items.map(encode), D1_MAX_JSON_PARAMETER_BYTES).map((chunk) => {
    const statement = sql`insert into ${table} (${names}) select ${selected(firstItem)} from json_each(${chunk.text}) where true${conflict}`;
    firstItem += chunk.count;
    return statement;
  });
}

const isPlace = (value: unknown): value is { placeFrom: number } => typeof value === "object" && value !== null && "placeFrom" in value;

function compile(statement: Statement): { sql: string; params: unknown[] } {
  return is(statement, SQL) ? dialect.sqlToQuery(statement) : statement.toSQL();
}

const ANNOUNCES = Symbol("what a statement's commit tells its handle");

/** `statement`, announcing `fact` to its handle once the batch that runs it commits (runBatch). */
export function announcing<S extends Statement>(statement: S, fact: CommitFact): S {
  return Object.assign(statement, { [ANNOUNCES]: fact });
}

/**
 * Runs statements as one D1 batch (one transaction). Used instead of drizzle's batch, which
 * cannot carry raw statements with parameters. Once it commits, the facts its statements announce
 * are noted on the handle (a batch that fails announces nothing).
 */
export async function runBatch(db: Db, statements: Statement[]): Promise<D1Result[]> {
  const client = db.$client;
  const results = await client.batch(
    statements.map((statement) => {
      const query = compile(statement);
      return client.prepare(query.sql).bind(...query.params);
    }),
  );
  const facts = new Set(statements.flatMap((statement) => (statement as { [ANNOUNCES]?: CommitFact })[ANNOUNCES] ?? []));
  if (facts.size) noteCommitted(db, facts);
  return results;
}

/**
 * A statement that aborts its batch unless `condition` holds at that point of the transaction:
 * the SQL-side re-check behind every Durable Object command.
 */
export function writeGuard(condition: SQL): SQL {
  return sql`insert into ${writeGuards} (${sql.identifier(writeGuards.ok.name)}) select 0 where not (${condition})`;
}
