import { acceptsCsv, csvListResponse } from "../../platform/http/csv";
import { listContextOf } from "../../platform/http/context";
import { mapPage } from "../../platform/data/pagination";
import { defineRoute } from "../../platform/http/routes";
import { HISTORY_CSV_COLUMNS, historyCsvRows } from "../csv";
import { listHistory, toChangeRecordRepresentation } from "../queries";
import { historyList, historyPage, historyQuery } from "../schemas";

export default defineRoute(
  {
    method: "get",
    path: "/v1/history",
    operationId: "listHistory",
    summary: "Read the change history",
    description: [
      "Every committed change to the tenant's resources, newest first: one record per resource changed, with only the fields that changed, each from its previous to its next value, who changed it (actor), in which request, why (svc-change-reason) and when.",
      'Written in the same transaction as the change: a dry run, a refused write and a write that changes nothing leave none. Secrets (key hashes, webhook signing secrets) show as "[redacted]".',
      "Records are kept for at least 3 years (PUT /v1/settings/history); deleting an Operation keeps its history. A page reaching past 90 days reads the archive: slower. Accept: text/csv answers the whole filtered list as CSV, one row per changed field.",
    ].join(" "),
    tag: "History",
    roles: ["OPERATOR"],
    query: historyQuery,
    responses: { 200: { description: "One page of change records.", schema: historyPage } },
    csvExport: { columns: HISTORY_CSV_COLUMNS },
    errors: ["invalid_next_token"],
  },
  async function handleListHistory(c, { query }) {
    if (acceptsCsv(c.req.header("accept"))) {
      return csvListResponse({
        columns: HISTORY_CSV_COLUMNS,
        filename: "history.csv",
        readPage: (nextToken) => listHistory(listContextOf(c), { ...query, limit: historyList.maxLimit, nextToken }),
        toRows: (row) => historyCsvRows(toChangeRecordRepresentation(row)),
      });
    }
    return c.json(mapPage(await listHistory(listContextOf(c), query), toChangeRecordRepresentation));
  },
);
