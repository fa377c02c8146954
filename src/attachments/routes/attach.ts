import { operationCoordinator } from "../../operations/coordinator/runner";
import type { Context } from "hono";
import { batchAnswer, DRY_RUN_ANSWER_HEADERS } from "../../platform/http/batch-answer";
import type { AppBindings } from "../../platform/http/context";
import type { ErrorCode } from "../../platform/core/errors";
import { defineRoute } from "../../platform/http/routes";
import { attachAccounts } from "../commands";
import { attachResponse, MAX_ACCOUNT_IDS_PER_CALL } from "../schemas";
import { ACCOUNT_IDS_REQUEST, type AccountIdsInputs } from "./account-ids";

/** PUT and POST attach alike: one declaration but for the method, one handler. */
const ATTACH = {
  ...ACCOUNT_IDS_REQUEST,
  description: [
    `Attaches up to ${MAX_ACCOUNT_IDS_PER_CALL} directory accounts, all or nothing. DRAFT only (409 operation_not_draft); PRIVATE only (409 operation_not_private).`,
    "Accounts not in the directory: 422 unknown_accounts with unknownAccountIds. An ACCOUNT key may attach only accounts whose users include its userId, else 403 account_not_permitted with accountIds.",
    "Already attached accounts are counted in alreadyAttached, not refused; a call that attaches nothing new changes nothing (no version bump, no event).",
    `More than ${MAX_ACCOUNT_IDS_PER_CALL} ids: 413 batch_too_large; an empty array: 400; repeated ids count once.`,
  ].join(" "),
  responses: {
    200: {
      description: "Accounts attached now and already attached, and the account count after the call.",
      schema: attachResponse,
      headers: DRY_RUN_ANSWER_HEADERS,
    },
  },
  errors: [
    "not_found",
    "operation_not_draft",
    "operation_not_private",
    "unknown_accounts",
    "account_not_permitted",
    "batch_too_large",
    "version_mismatch",
    "idempotency_key_reused",
  ] satisfies ErrorCode[],
};

async function handleAttachAccounts(c: Context<AppBindings>, { params, query, body }: AccountIdsInputs) {
  return batchAnswer(c, query.dryRun, await operationCoordinator(c).run(params.operationId, attachAccounts, { accountIds: body, dryRun: query.dryRun }));
}

export const attachPut = defineRoute({ ...ATTACH, method: "put", operationId: "attachAccounts", summary: "Attach accounts" }, handleAttachAccounts);

// Two spellings of one call: PUT is the one to use.
export const attachPost = defineRoute(
  {
    ...ATTACH,
    method: "post",
    operationId: "attachAccountsViaPost",
    summary: "Attach accounts (same as PUT; deprecated)",
    deprecated: { since: "2026-11-23", use: "PUT /v1/operations/{operationId}/accounts" },
  },
  handleAttachAccounts,
);
