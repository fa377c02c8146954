import { tenantPrimaryDb, writerOf } from "../../platform/http/context";
import { batchAnswer, DRY_RUN_ANSWER_HEADERS } from "../../platform/http/batch-answer";
import { dryRunQuery } from "../../platform/schema/fields";
import { defineRoute } from "../../platform/http/routes";
import { upsertDirectory } from "../commands";
import { MAX_DIRECTORY_ACCOUNTS_PER_CALL, putDirectoryBody, putDirectoryResponse } from "../schemas";

export default defineRoute(
  {
    method: "put",
    path: "/v1/accounts",
    operationId: "upsertAccounts",
    summary: "Upsert directory accounts",
    description: `Mirrors the customer system's accounts: up to ${MAX_DIRECTORY_ACCOUNTS_PER_CALL} accounts per call, upserted by accountId, all or nothing. users (default []) replaces the account's users. More than ${MAX_DIRECTORY_ACCOUNTS_PER_CALL}: 413 batch_too_large; an empty array: 400. Records directory.upserted.`,
    tag: "Accounts",
    roles: ["OPERATOR"],
    query: dryRunQuery,
    body: putDirectoryBody,
    batch: { maxItems: MAX_DIRECTORY_ACCOUNTS_PER_CALL },
    responses: { 200: { description: "Accounts created and updated.", schema: putDirectoryResponse, headers: DRY_RUN_ANSWER_HEADERS } },
    errors: ["batch_too_large", "idempotency_key_reused"],
  },
  async function handleUpsertAccounts(c, { query, body }) {
    return batchAnswer(c, query.dryRun, await upsertDirectory(writerOf(c, tenantPrimaryDb(c)), body, { dryRun: query.dryRun }));
  },
);
