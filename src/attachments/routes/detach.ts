import { operationCoordinator } from "../../operations/coordinator/runner";
import { batchAnswer, DRY_RUN_ANSWER_HEADERS } from "../../platform/http/batch-answer";
import { defineRoute } from "../../platform/http/routes";
import { detachAccounts } from "../commands";
import { detachResponse, MAX_ACCOUNT_IDS_PER_CALL } from "../schemas";
import { ACCOUNT_IDS_REQUEST } from "./account-ids";

export default defineRoute(
  {
    ...ACCOUNT_IDS_REQUEST,
    method: "delete",
    operationId: "detachAccounts",
    summary: "Detach accounts",
    description: `Detaches up to ${MAX_ACCOUNT_IDS_PER_CALL} accounts, all or nothing. DRAFT and PRIVATE only, like attach. An ACCOUNT key may detach only accounts whose users include its userId, else 403 account_not_permitted and nothing is detached. Ids not attached are listed in notAttached; a call that detaches nothing changes nothing. More than ${MAX_ACCOUNT_IDS_PER_CALL}: 413 batch_too_large; an empty array: 400.`,
    responses: {
      200: {
        description: "Accounts detached, ids not attached, and the account count after the call.",
        schema: detachResponse,
        headers: DRY_RUN_ANSWER_HEADERS,
      },
    },
    errors: [
      "not_found",
      "operation_not_draft",
      "operation_not_private",
      "account_not_permitted",
      "batch_too_large",
      "version_mismatch",
      "idempotency_key_reused",
    ],
  },
  async function handleDetachAccounts(c, { params, query, body }) {
    return batchAnswer(c, query.dryRun, await operationCoordinator(c).run(params.operationId, detachAccounts, { accountIds: body, dryRun: query.dryRun }));
  },
);
