import { attachAccounts } from "../commands";
import type { HttpMethod } from "../../platform/routes";
import { attachResponse, MAX_ACCOUNT_IDS_PER_CALL } from "../schemas";
import { accountIdsRoute } from "./account-ids-route";

/** PUT and POST attach alike. */
const attachRoute = (method: HttpMethod) =>
  accountIdsRoute({
    method,
    operationId: method === "put" ? "attachAccounts" : "attachAccountsViaPost",
    command: attachAccounts,
    summary: method === "put" ? "Attach accounts" : "Attach accounts (same as PUT; deprecated)",
    // Two spellings of one call: PUT is the one to use.
    deprecated: method === "post" ? { since: "2026-11-23", use: "PUT /v1/operations/{operationId}/accounts" } : undefined,
    description: [
      `Attaches up to ${MAX_ACCOUNT_IDS_PER_CALL} directory accounts, all or nothing. DRAFT only (409 operation_not_draft); PRIVATE only (409 operation_not_private).`,
      "Accounts not in the directory: 422 unknown_accounts with unknownAccountIds. An ACCOUNT key may attach only accounts whose users include its userId, else 403 account_not_permitted with accountIds.",
      "Already attached accounts are counted in alreadyAttached, not refused; a call that attaches nothing new changes nothing (no version bump, no event).",
      `More than ${MAX_ACCOUNT_IDS_PER_CALL} ids: 413 batch_too_large; an empty array: 400; repeated ids count once.`,
    ].join(" "),
    response: { description: "Accounts attached now and already attached, and the account count after the call.", schema: attachResponse },
    errors: [
      "not_found",
      "operation_not_draft",
      "operation_not_private",
      "unknown_accounts",
      "account_not_permitted",
      "batch_too_large",
      "version_mismatch",
      "idempotency_key_reused",
    ],
  });

export const attachPut = attachRoute("put");
export const attachPost = attachRoute("post");
