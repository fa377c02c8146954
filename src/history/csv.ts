import type { CsvValue } from "../platform/http/csv";
import type { ChangeRecordRepresentation } from "./schemas";

/** History as CSV: one row per changed field (its record's other columns repeated), so a spreadsheet filters and sorts it. */
export const HISTORY_CSV_COLUMNS = [
  "id",
  "at",
  "actor",
  "actorKeyId",
  "reason",
  "resourceType",
  "resourceId",
  "operationId",
  "version",
  "action",
  "field",
  "previous",
  "next",
] as const;

/** A value in a cell: text and numbers as they are, anything else (a localized name, a list) as JSON; absent: empty. */
const cell = (value: unknown): CsvValue =>
  value === undefined || value === null ? null : typeof value === "string" || typeof value === "number" ? value : JSON.stringify(value);

export function historyCsvRows(record: ChangeRecordRepresentation): CsvValue[][] {
  const head = [
    record.id,
    record.at,
    record.actor,
    record.actorKeyId,
    record.reason,
    record.resourceType,
    record.resourceId,
    record.operationId,
    record.version,
    record.action,
  ];
  return record.changes.map((change) => [...head, change.field, cell(change.previous), cell(change.next)]);
}
