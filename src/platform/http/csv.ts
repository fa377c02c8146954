import { CsvError, parse } from "csv-parse/browser/esm/sync";
import { stringify } from "csv-stringify/browser/esm/sync";
import { ApiError, type ProblemItem } from "../core/errors";
import { streamedResponse } from "./streaming";
import { neutralizeCell, restoreCell } from "../../common/csv-cells";

export const CSV_MEDIA_TYPE = "text/csv";

export type CsvValue = string | number | null | undefined;

/** CSV lines (RFC 4180, CRLF) for rows of values: null and undefined are empty cells. */
export function csvLines(rows: CsvValue[][]): string {
  return stringify(
    rows.map((row) => row.map((value) => (value === null || value === undefined ? "" : typeof value === "number" ? String(value) : neutralizeCell(value)))),
    // A bare CR or LF inside a cell is quoted too (RFC 4180 quotes any line break, not only CRLF).
    { record_delimiter: "\r\n", quoted_match: /[\r\n]/ },
  );
}

/** Whether a request body is CSV (Content-Type: text/csv, any parameters). */
export function isCsvContentType(contentType: string | undefined): boolean {
  return (contentType ?? "").split(";")[0].trim().toLowerCase() === CSV_MEDIA_TYPE;
}

/** Whether the client asked for CSV (Accept: text/csv). */
export function acceptsCsv(accept: string | undefined): boolean {
  return (accept ?? "").split(",").some((type) => type.trim().toLowerCase().startsWith(CSV_MEDIA_TYPE));
}

/**
 * A whole list as one streamed CSV answer: `readPage` pages through it (keyset tokens, as the JSON
 * list does). The first page is read before answering, so its failures (an unknown Operation)
 * answer as usual; the others are read as the client reads, so the file is never held whole.
 */
export async function csvListResponse<Item>(list: {
  columns: readonly string[];
  filename: string;
  readPage: (nextToken: string | undefined) => Promise<{ items: Item[]; nextToken: string | null }>;
  /** An item's row, or (`toRows`) its rows when one item makes several (a change record, one per field). */
  toRow?: (item: Item) => CsvValue[];
  toRows?: (item: Item) => CsvValue[][];
}): Promise<Response> {
  const first = await list.readPage(undefined);
  const rowsOf = (items: Item[]) => (list.toRows ? items.flatMap(list.toRows) : items.map(list.toRow!));
  async function* rows(): AsyncGenerator<CsvValue[][]> {
    let page = first;
    yield rowsOf(page.items);
    while (page.nextToken) {
      page = await list.readPage(page.nextToken);
      yield rowsOf(page.items);
    }
  }
  return csvResponse(list.columns, rows(), list.filename);
}

/**
 * A streamed CSV answer: the header, then each page of rows as it is pulled (inside this request, as
 * the client reads). It passes `serve` unbuffered (src/platform/http/streaming.ts).
 */
function csvResponse(header: readonly string[], pages: AsyncIterable<CsvValue[][]>, filename: string): Response {
  const encoder = new TextEncoder();
  const iterator = pages[Symbol.asyncIterator]();
  let headerSent = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!headerSent) {
        headerSent = true;
        controller.enqueue(encoder.encode(csvLines([[...header]])));
        return;
      }
      // A pull that neither enqueues nor closes is never followed by another: skip empty pages (an
      // empty list, or a filter that leaves a page empty) within this pull.
      for (;;) {
        const next = await iterator.next();
        if (next.done) return controller.close();
        if (next.value.length) return controller.enqueue(encoder.encode(csvLines(next.value)));
      }
    },
    async cancel() {
      await iterator.return?.();
    },
  });
  return streamedResponse(body, {
    headers: { "content-type": `${CSV_MEDIA_TYPE}; charset=utf-8`, "content-disposition": `attachment; filename="${filename}"` },
  });
}

/** One data record of an imported CSV: its cells by column (empty cells left out) and its line in the file. */
export interface CsvRecord {
  /** The 1-based line of the file where the record starts (the header is row 1). */
  row: number;
  cells: Record<string, string>;
}

function csvProblem(detail: string, errors: ProblemItem[]): ApiError {
  return new ApiError("validation_failed", detail, { errors });
}

const newlines = (text: string) => (text.match(/\r\n|\r|\n/g) ?? []).length;

/**
 * Parses an uploaded CSV (UTF-8, optional BOM, CRLF or LF, quoted fields with commas, quotes and
 * newlines) whose header row names its columns, in any order. Malformed CSV, a missing header, an
 * unknown, repeated or missing required column: 400 validation_failed with the row.
 */
export function parseCsv(text: string, columns: { allowed: readonly string[]; required: readonly string[] }): CsvRecord[] {
  let parsed: { record: string[]; info: { lines: number } }[];
  try {
    parsed = parse(text, { bom: true, info: true, skip_empty_lines: true, record_delimiter: ["\r\n", "\n", "\r"] }) as never;
  } catch (error) {
    if (error instanceof CsvError) {
      const row = (error as CsvError & { lines?: number }).lines ?? null;
      throw csvProblem(`The CSV is malformed: ${error.message}.`, [{ field: "body", code: "invalid_csv", message: error.message, ...(row && { row }) }]);
    }
    throw error;
  }
  if (!parsed.length)
    throw csvProblem("The CSV has no header row.", [{ field: "body", code: "missing_header", message: "the first row must name the columns", row: 1 }]);
  const header = parsed[0].record.map((name) => name.trim());
  const problems: ProblemItem[] = [];
  header.forEach((name, index) => {
    if (!columns.allowed.includes(name))
      problems.push({
        field: `column ${name || index + 1}`,
        code: "unknown_column",
        message: `unknown column; the columns are ${columns.allowed.join(", ")}`,
        row: 1,
      });
    else if (header.indexOf(name) !== index) problems.push({ field: `column ${name}`, code: "duplicate_column", message: "the column appears twice", row: 1 });
  });
  for (const name of columns.required) {
    if (!header.includes(name)) problems.push({ field: `column ${name}`, code: "missing_column", message: "a required column is missing", row: 1 });
  }
  if (problems.length) throw csvProblem("The CSV header does not match the columns this route takes.", problems);
  return parsed.slice(1).map(({ record, info }) => {
    const cells: Record<string, string> = {};
    record.forEach((value, index) => {
      if (value !== "") cells[header[index]] = restoreCell(value);
    });
    return { row: info.lines - record.reduce((count, value) => count + newlines(value), 0), cells };
  });
}

/** The integer a numeric column's cell holds, or the cell itself (validation then names it). */
export function integerCell(value: string | undefined): number | string | undefined {
  return value !== undefined && /^-?\d+$/.test(value.trim()) ? Number(value.trim()) : value;
}
