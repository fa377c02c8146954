import type * as z from "zod";
import type { Command } from "../../platform/commands";
import type { Deprecation } from "../../platform/deprecation";
import type { ErrorCode } from "../../platform/errors";
import { defineRoute, type HttpMethod, type ResponseSpec } from "../../platform/routes";
import { batchAnswer } from "../../platform/app";
import { dryRunQuery, operationIdParam } from "../../platform/fields";
import type { AccountIdsInput } from "../commands";
import { accountIdsBody, ATTACHMENT_CSV_COLUMNS, MAX_ACCOUNT_IDS_PER_CALL } from "../schemas";

/** Attach and detach: the same path, body, limit and roles; they differ in the command they run and its answer. */
export function accountIdsRoute<Answer extends z.ZodType>(route: {
  method: HttpMethod;
  operationId: string;
  command: Command<AccountIdsInput, z.output<Answer>>;
  summary: string;
  description: string;
  response: ResponseSpec & { schema: Answer };
  errors: ErrorCode[];
  deprecated?: Deprecation;
}) {
  return defineRoute(
    {
      method: route.method,
      path: "/v1/operations/:operationId/accounts",
      operationId: route.operationId,
      summary: route.summary,
      description: route.description,
      tag: "Accounts",
      roles: ["OPERATOR", "ACCOUNT"],
      params: operationIdParam,
      query: dryRunQuery,
      body: accountIdsBody,
      batch: { maxItems: MAX_ACCOUNT_IDS_PER_CALL },
      csvImport: { columns: { allowed: ATTACHMENT_CSV_COLUMNS, required: ["accountId"] }, toItem: (cells) => cells.accountId },
      responses: { 200: { ...route.response, headers: { "svc-dry-run": "true on a dry run" } } },
      errors: route.errors,
      deprecated: route.deprecated,
    },
    async (c, { params, query, body }) => {
      return batchAnswer(c, query.dryRun, await c.var.coordinator.run(params.operationId, route.command, { accountIds: body, dryRun: query.dryRun }));
    },
  );
}
