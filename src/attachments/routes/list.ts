import { acceptsCsv, csvListResponse } from "../../platform/http/csv";
import { listContextOf } from "../../platform/http/context";
import { mapPage } from "../../platform/data/pagination";
import { defineRoute } from "../../platform/http/routes";
import { operationIdParam } from "../../platform/schema/fields";
import { listAttachments, listAttachmentsAsOf, toAttachmentRepresentation } from "../queries";
import { ATTACHMENT_CSV_COLUMNS, attachmentList, attachmentPage, listAttachmentsAsOfQuery, type ListAttachmentsQuery } from "../schemas";

export default defineRoute(
  {
    method: "get",
    path: "/v1/operations/:operationId/accounts",
    operationId: "listAttachedAccounts",
    summary: "List an Operation's attached accounts",
    description:
      "Filters combine with AND. asOf=<version> (OPERATOR keys) lists the accounts attached at that version of the Operation. accountName: case-insensitive substring; userId / email: accounts with that user / a user of that email (exact, ignoring case); operationStatus: the account's progress in this Operation. Sort accountName uses the lower-cased name. ACCOUNT keys may list the Operations they can see, and see only their own accounts' attachments.",
    tag: "Accounts",
    roles: ["OPERATOR", "ACCOUNT"],
    params: operationIdParam,
    query: listAttachmentsAsOfQuery,
    operatorOnlyQuery: ["asOf"],
    responses: { 200: { description: "One page of attached accounts.", schema: attachmentPage } },
    csvExport: { columns: ATTACHMENT_CSV_COLUMNS },
    errors: ["not_found", "version_not_found", "invalid_next_token"],
  },
  async function handleListAttachedAccounts(c, { params, query: { asOf, ...query } }) {
    const readPage = (page: ListAttachmentsQuery) =>
      asOf === undefined ? listAttachments(listContextOf(c), params.operationId, page) : listAttachmentsAsOf(listContextOf(c), params.operationId, asOf, page);
    if (acceptsCsv(c.req.header("accept"))) {
      return csvListResponse({
        columns: ATTACHMENT_CSV_COLUMNS,
        filename: `accounts-${params.operationId}.csv`,
        readPage: (nextToken) => readPage({ ...query, limit: attachmentList.maxLimit, nextToken }),
        toRow: (row) => [row.accountId, row.accountName, row.operationStatus, row.attachedAt],
      });
    }
    const page = await readPage(query);
    return c.json(mapPage(page, toAttachmentRepresentation));
  },
);
