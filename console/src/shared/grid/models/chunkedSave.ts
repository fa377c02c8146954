import { toRefusal, type Refusal } from "../../session";
import { t } from "../../i18n";

/**
 * How a grid's unsaved rows (or any rows: a plan's caps) reach a bulk PUT that takes at most `size`
 * rows a call (the API's limit), for the lines grid and the rules grid alike: in chunks, a dry run of
 * every chunk before any is saved, so a refusal in the last chunk leaves nothing half saved; the
 * server's errors land on their rows; a commit refused midway says exactly which rows were saved.
 */

/** The counts a bulk PUT answers (created, updated, …), added up over the chunks. */
export type Counts = Record<string, number>;

export interface ErrorItem {
  index?: number;
  field?: string;
  message?: string;
}

/** A chunk the server refused: its refusal, and the rows the chunks before it saved (none in a dry run). */
export class ChunkRefused<Row> {
  constructor(
    readonly refusal: Refusal,
    readonly saved: Row[],
  ) {}
}

/** What sending chunks tells the grid's draft (its rows are `GridRow`s), or whatever holds the rows. */
export interface ChunkSink<Row> {
  setServerError: (row: Row, message: string) => void;
  settle: (saved: Row[]) => void;
  refresh: () => void;
}

export interface ChunkedPut<Row, Result extends Counts> {
  /** Where the server's errors and the saved rows go (the grid's draft). */
  draft: ChunkSink<Row>;
  /** Rows per call: the API's limit. */
  size: number;
  put: (rows: Row[], dryRun: boolean) => Promise<Result>;
  /** The text a row shows for an item of the server's errors[] (by default its message). */
  messageOf?: (item: ErrorItem, refusal: Refusal) => string;
  /**
   * The rows of a refused chunk a refusal names, each with what it is told: by default the items of
   * its errors[], by their index in the chunk (messageOf says them); a refusal naming rows otherwise
   * (by their key) says how.
   */
  refusedRows?: (refusal: Refusal, chunk: Row[]) => [Row, string][];
  /** After each chunk sent: how many rows were sent so far, of how many (a long save shows how far it is). */
  onProgress?: (sent: number, total: number, dryRun: boolean) => void;
}

/** The rows of `chunk` a refusal's errors[] names by index, each with its message. */
export function rowsByIndex<Row>(
  refusal: Refusal,
  chunk: readonly Row[],
  messageOf: (item: ErrorItem, refusal: Refusal) => string = (item) => item.message ?? refusal.problem.code,
): [Row, string][] {
  return ((refusal.problem as { errors?: ErrorItem[] }).errors ?? []).flatMap((item) => {
    const row = item.index === undefined ? undefined : chunk[item.index];
    return row === undefined ? [] : [[row, messageOf(item, refusal)] as [Row, string]];
  });
}

/**
 * Sends `rows` chunk after chunk and adds up the counts. A saved chunk is settled at once (its rows are
 * no longer unsaved edits); a refused chunk puts the server's errors[] on its rows and throws a
 * ChunkRefused naming the rows saved before it.
 */
export async function putInChunks<Row, Result extends Counts>(rows: Row[], dryRun: boolean, call: ChunkedPut<Row, Result>): Promise<Result> {
  const { draft, size, put, messageOf, refusedRows = (refusal, chunk) => rowsByIndex(refusal, chunk, messageOf), onProgress } = call;
  let totals: Result | undefined;
  for (let offset = 0; offset < rows.length; offset += size) {
    const chunk = rows.slice(offset, offset + size);
    let counts: Result;
    try {
      counts = await put(chunk, dryRun);
    } catch (error) {
      const refusal = toRefusal(error);
      for (const [row, message] of refusedRows(refusal, chunk)) draft.setServerError(row, message);
      draft.refresh();
      throw new ChunkRefused(refusal, dryRun ? [] : rows.slice(0, offset));
    }
    if (!dryRun) draft.settle(chunk);
    onProgress?.(offset + chunk.length, rows.length, dryRun);
    totals = totals ? (Object.fromEntries(Object.entries(totals).map(([name, n]) => [name, n + (counts[name] ?? 0)])) as Result) : counts;
  }
  return totals!;
}

/**
 * What a commit refused midway saved, exactly: how many of the rows sent (and which, by `labelOf`,
 * in the grid's order), and that the rest stay as unsaved edits.
 */
export function describePartialSave<Row>(refused: ChunkRefused<Row>, sent: number, what: string, labelOf: (row: Row) => string): string {
  const { saved } = refused;
  const kept = sent - saved.length;
  if (!saved.length) return t("grid.nothingSaved", { what, sent });
  return t("grid.partlySaved", { saved: saved.length, sent, what, first: labelOf(saved[0]), last: labelOf(saved[saved.length - 1]), kept });
}
