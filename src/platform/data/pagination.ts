import { and, sql, type SQL, type SQLWrapper } from "drizzle-orm";
import type { AnySQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import { base64UrlDecodeText, base64UrlEncodeText, hmacSha256, timingSafeEqual } from "../core/crypto";
import type { Db } from "./database";
import { ApiError } from "../core/errors";
import type { Principal } from "../core/principal";

/** A sortable field: a non-null SQL expression (nulls are coalesced so keyset comparisons stay total). */
export type SortExpression = AnySQLiteColumn | SQL;

export interface ListDefinition {
  /** Names the list in tokens, so a token from one list never opens another. */
  name: string;
  sortable: Record<string, SortExpression>;
  /** The final tiebreak; unique within the list. */
  id: SortExpression;
  defaultSort: string;
  maxLimit: number;
}

export interface SortKey {
  field: string;
  desc: boolean;
}

export interface PageRequest {
  limit: number;
  nextToken?: string;
  sort?: string;
}

export interface Page<Row> {
  items: Row[];
  nextToken: string | null;
}

export const DEFAULT_LIMIT = 50;

export function parseSort(definition: ListDefinition, raw: string | undefined): SortKey[] {
  const keys: SortKey[] = [];
  for (const part of (raw || definition.defaultSort).split(",")) {
    const desc = part.startsWith("-");
    const field = desc ? part.slice(1) : part;
    if (!(field in definition.sortable)) {
      throw new ApiError("validation_failed", `Unknown sort field ${field}.`, {
        errors: [{ field: "query.sort", code: "invalid_value", message: `Unknown sort field ${field}` }],
      });
    }
    if (!keys.some((k) => k.field === field)) keys.push({ field, desc });
  }
  return keys;
}

interface TokenPayload {
  /** Cursor values, one per sort key plus the id. */
  k: (string | number)[];
  /** Digest of the list, scope, filters and sort the token belongs to. */
  b: string;
}

function canonical(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
}

export interface RunPageOptions {
  where: SQL | undefined;
  orderBy: SQL[];
  limit: number;
  /** Select these alongside the row: the engine reads them back to build the next token. */
  cursorColumns: Record<string, SQL>;
}

/**
 * The list engine every list endpoint uses: validates the token against the filters and sort,
 * turns it into a keyset condition, fetches one extra row to know whether a next page exists.
 */
export async function listPage<Row extends Record<string, unknown>>(options: {
  definition: ListDefinition;
  secret: string;
  /** Whose list this is (tenant, user, operation, view): a token is bound to it. */
  scope: Record<string, unknown>;
  /** The validated query: limit, nextToken and sort page the list; the rest are its filters, also bound to the token. */
  query: PageRequest;
  filters: (SQL | undefined)[];
  run: (options: RunPageOptions) => Promise<Row[]>;
}): Promise<Page<Omit<Row, `_k${number}`>>> {
  const { definition } = options;
  const { limit, nextToken: token, sort, ...queryFilters } = options.query as PageRequest & Record<string, unknown>;
  const page: PageRequest = { limit, nextToken: token, sort };
  const sortKeys = parseSort(definition, page.sort);
  const expressions = sortKeys.map((k) => definition.sortable[k.field]);
  const directions = sortKeys.map((k) => k.desc);
  if (expressions[expressions.length - 1] !== definition.id) {
    // The id follows the direction of the last sort key, so one index scan (forward or backward) serves the order.
    expressions.push(definition.id);
    directions.push(directions[directions.length - 1]);
  }
  const bindingDigest = await hmacSha256(
    options.secret,
    canonical({ list: definition.name, binding: { ...options.scope, filters: queryFilters }, sort: sortKeys }),
  );

  let keyset: SQL | undefined;
  if (page.nextToken) {
    const cursor = await decodeToken(options.secret, page.nextToken);
    if (!cursor || cursor.b !== bindingDigest || cursor.k.length !== expressions.length) {
      throw new ApiError("invalid_next_token", "nextToken was not issued for this list with these filters and sort.");
    }
    keyset = keysetCondition(expressions, directions, cursor.k);
  }

  const cursorColumns: Record<string, SQL> = {};
  expressions.forEach((expression, i) => {
    cursorColumns[`_k${i}`] = sql`${expression}`;
  });
  const orderBy = expressions.map((expression, i) => (directions[i] ? sql`${expression} desc` : sql`${expression} asc`));
  const rows = await options.run({
    where: and(...options.filters, keyset),
    orderBy,
    limit: page.limit + 1,
    cursorColumns,
  });

  const hasMore = rows.length > page.limit;
  const pageRows = hasMore ? rows.slice(0, page.limit) : rows;
  let nextToken: string | null = null;
  if (hasMore) {
    const last = pageRows[pageRows.length - 1];
    nextToken = await encodeToken(options.secret, {
      k: expressions.map((_, i) => last[`_k${i}`] as string | number),
      b: bindingDigest,
    });
  }
  const items = pageRows.map((row) => {
    const copy: Record<string, unknown> = { ...row };
    for (const key of Object.keys(cursorColumns)) delete copy[key];
    return copy as Omit<Row, `_k${number}`>;
  });
  return { items, nextToken };
}

/** What every list reads with: the request's database, the token secret and the caller. */
export interface ListContext {
  db: Db;
  /** Change history past its hot window (src/history/archive/): read by the history lists and past versions. */
  archive: R2Bucket;
  secret: string;
  principal: Principal;
}

/**
 * SQLite's BINARY order of two texts (that of their UTF-8 bytes, which is code point order): a page
 * computed in memory sorts as the same rows read by `order by` would, beyond the BMP too.
 */
export function compareText(a: string, b: string): number {
  const shorter = Math.min(a.length, b.length);
  for (let i = 0; i < shorter; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      // Surrogates (U+D800–DFFF, code points beyond U+FFFF) come after U+E000–FFFF in code point order.
      x += x >= 0xe000 ? -0x800 : 0x2000;
      y += y >= 0xe000 ? -0x800 : 0x2000;
    }
    return x < y ? -1 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/** The order `keys` (then the id, in the last key's direction) puts two items in, by their sort values. */
export function compareByKeys(a: (string | number)[], b: (string | number)[], directions: boolean[]): number {
  for (let i = 0; i < a.length; i++) {
    if (a[i] === b[i]) continue;
    const before = typeof a[i] === "string" && typeof b[i] === "string" ? compareText(a[i] as string, b[i] as string) : a[i] < b[i] ? -1 : 1;
    return directions[i] ? -before : before;
  }
  return 0;
}

/**
 * A list paged outside listPage's SQL (in memory, or by a query of its own): its sort keys, their
 * directions (the id last, in the last key's direction), and its tokens, signed and bound to the
 * list, scope, filters and sort exactly as listPage binds them.
 */
export interface PageBinding {
  sortKeys: SortKey[];
  directions: boolean[];
  limit: number;
  /** The sort values (then the id) of the last item of the page before; null on the first page. */
  cursor: (string | number)[] | null;
  /** The nextToken of a page that ends with an item of these sort values (then its id). */
  tokenAfter(key: (string | number)[]): Promise<string>;
}

export async function bindPage(options: {
  definition: ListDefinition;
  secret: string;
  scope: Record<string, unknown>;
  query: PageRequest;
}): Promise<PageBinding> {
  const { limit, nextToken: token, sort, ...queryFilters } = options.query as PageRequest & Record<string, unknown>;
  const sortKeys = parseSort(options.definition, sort);
  const directions = [...sortKeys.map((key) => key.desc), sortKeys[sortKeys.length - 1].desc];
  const bindingDigest = await hmacSha256(
    options.secret,
    canonical({ list: options.definition.name, binding: { ...options.scope, filters: queryFilters }, sort: sortKeys }),
  );
  let cursor: (string | number)[] | null = null;
  if (token) {
    const decoded = await decodeToken(options.secret, token);
    if (!decoded || decoded.b !== bindingDigest || decoded.k.length !== directions.length) {
      throw new ApiError("invalid_next_token", "nextToken was not issued for this list with these filters and sort.");
    }
    cursor = decoded.k;
  }
  return { sortKeys, directions, limit, cursor, tokenAfter: (key) => encodeToken(options.secret, { k: key, b: bindingDigest }) };
}

/**
 * The list engine over items already in memory (a past version of an Operation's lines): the same
 * query (limit, nextToken, sort; the rest bound to the token as filters), the same signed tokens and
 * the same keyset semantics as listPage, with `valueOf` giving each sortable field's value as its
 * SQL expression would.
 */
export async function pageInMemory<Item>(options: {
  definition: ListDefinition;
  secret: string;
  scope: Record<string, unknown>;
  query: PageRequest;
  items: readonly Item[];
  valueOf: (item: Item, field: string) => string | number;
  idOf: (item: Item) => string;
}): Promise<Page<Item>> {
  const { sortKeys, directions, limit, cursor, tokenAfter } = await bindPage(options);
  const keyOf = (item: Item) => [...sortKeys.map((key) => options.valueOf(item, key.field)), options.idOf(item)];
  const sorted = options.items.map((item) => ({ item, key: keyOf(item) })).sort((a, b) => compareByKeys(a.key, b.key, directions));
  let start = 0;
  if (cursor) {
    start = sorted.findIndex((entry) => compareByKeys(entry.key, cursor, directions) > 0);
    if (start < 0) start = sorted.length;
  }
  const page = sorted.slice(start, start + limit);
  const hasMore = start + limit < sorted.length;
  return { items: page.map((entry) => entry.item), nextToken: hasMore ? await tokenAfter(page[page.length - 1].key) : null };
}

/** The `run` of a list of one table's whole rows: each item is `{ row }`. */
export function selectRows<T extends SQLiteTable>(db: Db, table: T) {
  return ({ where, orderBy, limit, cursorColumns }: RunPageOptions) =>
    db
      .select({ row: table, ...cursorColumns })
      .from(table)
      .where(where)
      .orderBy(...orderBy)
      .limit(limit);
}

/** The page with each item turned into its representation. */
export function mapPage<Row, Item>(page: Page<Row>, represent: (row: Row) => Item): Page<Item> {
  return { items: page.items.map((row) => represent(row)), nextToken: page.nextToken };
}

/**
 * Pages of a list computed in memory rather than read from a table (an impact replay's accounts):
 * the same signed nextToken as every list, bound to the list, its scope and the request it pages
 * (`binding`: what would change the list). The token carries the last item's sort values; the
 * caller keeps, of the items after them, the first `limit` (KeysetSelection), whatever their number.
 */
export interface ComputedList {
  name: string;
  secret: string;
  scope: Record<string, unknown>;
  binding: unknown;
}

async function computedListDigest(list: ComputedList): Promise<string> {
  return hmacSha256(list.secret, canonical({ list: list.name, binding: { ...list.scope, request: list.binding } }));
}

/** The sort values a nextToken of this list carries (null without a token); a token of another list or request: 400 invalid_next_token. */
export async function openComputedListToken(list: ComputedList, nextToken: string | undefined): Promise<(string | number)[] | null> {
  if (nextToken === undefined) return null;
  const cursor = await decodeToken(list.secret, nextToken);
  if (!cursor || cursor.b !== (await computedListDigest(list))) {
    throw new ApiError("invalid_next_token", "nextToken was not issued for this list with this request.");
  }
  return cursor.k;
}

/** The nextToken of a page of this list that ends with an item of these sort values. */
export async function computedListToken(list: ComputedList, last: (string | number)[]): Promise<string> {
  return encodeToken(list.secret, { k: last, b: await computedListDigest(list) });
}

/**
 * The first `limit` items, in `compare`'s order, among those offered one by one: held in at most
 * `limit` + 1 slots whatever the number offered, so a page of a computed list takes bounded memory.
 */
export class KeysetSelection<T> {
  private readonly kept: T[] = [];
  constructor(
    private readonly limit: number,
    private readonly compare: (a: T, b: T) => number,
  ) {}

  offer(item: T): void {
    const { kept } = this;
    if (kept.length > this.limit && this.compare(item, kept[kept.length - 1]) >= 0) return;
    let low = 0;
    let high = kept.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.compare(kept[middle], item) <= 0) low = middle + 1;
      else high = middle;
    }
    kept.splice(low, 0, item);
    if (kept.length > this.limit + 1) kept.pop();
  }

  /** The page, and whether more items follow it. */
  page(): { items: T[]; more: boolean } {
    return { items: this.kept.slice(0, this.limit), more: this.kept.length > this.limit };
  }
}

function keysetCondition(expressions: SortExpression[], directions: boolean[], values: (string | number)[]): SQL {
  if (directions.every((d) => d === directions[0])) {
    // Row values let SQLite seek straight into the index.
    const op = directions[0] ? sql.raw("<") : sql.raw(">");
    return sql`(${sql.join(
      expressions.map((e) => sql`${e}`),
      sql`, `,
    )}) ${op} (${sql.join(
      values.map((v) => sql`${v}`),
      sql`, `,
    )})`;
  }
  const branches: SQL[] = [];
  for (let i = 0; i < expressions.length; i++) {
    const equalities = expressions.slice(0, i).map((e, j) => sql`${e} = ${values[j]}`);
    const op = directions[i] ? sql.raw("<") : sql.raw(">");
    branches.push(sql`(${sql.join([...equalities, sql`${expressions[i]} ${op} ${values[i]}`], sql` and `)})`);
  }
  return sql`(${sql.join(branches, sql` or `)})`;
}

async function encodeToken(secret: string, payload: TokenPayload): Promise<string> {
  const body = base64UrlEncodeText(JSON.stringify(payload));
  return `${body}.${await hmacSha256(secret, body)}`;
}

async function decodeToken(secret: string, token: string): Promise<TokenPayload | null> {
  const [body, signature, ...rest] = token.split(".");
  if (!body || !signature || rest.length) return null;
  if (!timingSafeEqual(signature, await hmacSha256(secret, body))) return null;
  try {
    const payload = JSON.parse(base64UrlDecodeText(body)) as TokenPayload;
    if (!Array.isArray(payload.k) || typeof payload.b !== "string") return null;
    if (!payload.k.every((v) => typeof v === "string" || typeof v === "number")) return null;
    return payload;
  } catch {
    return null;
  }
}

/** Escapes LIKE wildcards so a text filter matches the literal substring. */
export function likeContains(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
}

/**
 * A substring filter on lower-cased stored text (e.g. a `searchText` column): case-insensitive,
 * wildcards taken literally. No condition when `text` is undefined.
 */
export function containsText(expression: SQLWrapper, text: string | undefined): SQL | undefined {
  return text === undefined ? undefined : sql`${expression} like ${likeContains(text)} escape '\\'`;
}
