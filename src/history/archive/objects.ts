import type { StoredChanges } from "../../platform/data/changes";

/*
 * An archive object: change sets of one tenant, day and Operation (or the tenant's other records) as
 * gzip-compressed NDJSON, newest set first — the order history is read in (a list's first page, a
 * version undone from now). Each set is a header line, then one line per record, its records newest
 * first (ordinal descending):
 *
 *   {"id":"chg_…","o":"op_…","v":7,"a":"user:…","k":"key_…","q":"<request id>","r":"<reason>","t":"<at>","n":2}
 *   ["l","u","SKU-123",1,{"maxQuantity":[50,5]}]
 *   ["l","u","SKU-124",0,{"maxQuantity":[20,8]}]
 *
 * (absent o, v, k, q, r: null; k, the key the change was made with, is absent from sets archived before it was kept). A record line is a small array a reader can skip without parsing, so
 * reaching a page deep in an object costs its decompression, not a parse of every record before it.
 * Records keep the shard's own encoding (one letter for type and action, only the changed fields).
 *
 * Objects are kept for years: each says its format in its custom metadata (`format`), and every
 * format written so far is read. 1 (2026-11-26, no `format` in the metadata): headers without `k`.
 * 2 (2026-11-28): headers may carry `k`, the key the change was made with.
 */

/** The format objects are written in now (ARCHIVE_FORMATS lists every one still read). */
export const ARCHIVE_FORMAT = 2;
const ARCHIVE_FORMATS = new Set([1, 2]);

/** An object's format from its custom metadata: 1 when it says none (written before formats were named). */
export function archiveFormatOf(customMetadata: Record<string, string> | undefined, objectKey: string): number {
  const format = customMetadata?.format === undefined ? 1 : Number(customMetadata.format);
  if (!ARCHIVE_FORMATS.has(format)) {
    throw new Error(
      `archived history ${objectKey} is in format ${customMetadata?.format}, which this version cannot read (it reads ${[...ARCHIVE_FORMATS].join(", ")})`,
    );
  }
  return format;
}

/** What every record of a set shares, as the set's header line holds it. */
export interface ArchivedSet {
  id: string;
  operationId: string | null;
  version: number | null;
  actor: string;
  keyId: string | null;
  requestId: string | null;
  reason: string | null;
  at: string;
  /** How many record lines follow. */
  records: number;
}

/** One record as the archive holds it: the shard's letters for its type and action. */
export interface ArchivedRecord {
  type: string;
  action: string;
  resourceId: string;
  ordinal: number;
  changes: StoredChanges;
}

/** A record read back with its set, in the object's order. */
export interface ArchivedEntry {
  set: ArchivedSet;
  record: ArchivedRecord;
}

/** A record as the shard stores it, its changes still JSON text (written into the object as they are). */
export interface StoredRecord {
  type: string;
  action: string;
  resourceId: string;
  ordinal: number;
  changes: string;
}

export const ARCHIVE_CONTENT_TYPE = "application/x-ndjson";

export function headerLine(set: ArchivedSet): string {
  const header: Record<string, unknown> = { id: set.id };
  if (set.operationId !== null) header.o = set.operationId;
  if (set.version !== null) header.v = set.version;
  header.a = set.actor;
  if (set.keyId !== null) header.k = set.keyId;
  if (set.requestId !== null) header.q = set.requestId;
  if (set.reason !== null) header.r = set.reason;
  header.t = set.at;
  header.n = set.records;
  return `${JSON.stringify(header)}\n`;
}

export function recordLine(record: StoredRecord): string {
  return `[${JSON.stringify(record.type)},${JSON.stringify(record.action)},${JSON.stringify(record.resourceId)},${record.ordinal},${record.changes}]\n`;
}

function parseHeader(line: string): ArchivedSet {
  const header = JSON.parse(line) as { id: string; o?: string; v?: number; a: string; k?: string; q?: string; r?: string; t: string; n: number };
  return {
    id: header.id,
    operationId: header.o ?? null,
    version: header.v ?? null,
    actor: header.a,
    keyId: header.k ?? null,
    requestId: header.q ?? null,
    reason: header.r ?? null,
    at: header.t,
    records: header.n,
  };
}

function parseRecord(line: string): ArchivedRecord {
  const [type, action, resourceId, ordinal, changes] = JSON.parse(line) as [string, string, string, number, StoredChanges];
  return { type, action, resourceId, ordinal, changes };
}

/** The object's bytes: `lines` (header and record lines, in the object's order) gzip-compressed. */
export async function compressLines(lines: readonly string[]): Promise<Uint8Array> {
  const compressed = new Blob(lines as string[]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(compressed).arrayBuffer());
}

export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/**
 * The entries of an object's body, in its order (newest first), a decompressed chunk's worth at a
 * time. `skipSet` is asked about each set's header in turn: true, and its records are passed over
 * unparsed (a set newer than a page's cursor). Stopping early (leaving the loop) cancels the rest of
 * the body.
 */
export async function* readEntries(body: ReadableStream<Uint8Array>, skipSet: (set: ArchivedSet) => boolean = () => false): AsyncGenerator<ArchivedEntry[]> {
  const reader = body.pipeThrough(new DecompressionStream("gzip")).pipeThrough(new TextDecoderStream()).getReader();
  let carry = "";
  let set: ArchivedSet | null = null;
  let skipping = false;
  const take = (line: string, batch: ArchivedEntry[]) => {
    if (line.charCodeAt(0) === 123 /* { */) {
      set = parseHeader(line);
      skipping = skipSet(set);
    } else if (!skipping && set !== null && line.length) {
      batch.push({ set, record: parseRecord(line) });
    }
  };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const text = carry + value;
      const batch: ArchivedEntry[] = [];
      let start = 0;
      for (let end = text.indexOf("\n"); end >= 0; end = text.indexOf("\n", start)) {
        take(text.slice(start, end), batch);
        start = end + 1;
      }
      carry = text.slice(start);
      if (batch.length) yield batch;
    }
    const last: ArchivedEntry[] = [];
    if (carry.length) take(carry, last);
    if (last.length) yield last;
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/** Counts an object's sets and records (the check after writing it). */
export async function countEntries(body: ReadableStream<Uint8Array>): Promise<{ sets: number; records: number }> {
  let sets = 0;
  let records = 0;
  const countSet = () => {
    sets++;
    return false;
  };
  for await (const batch of readEntries(body, countSet)) records += batch.length;
  return { sets, records };
}
