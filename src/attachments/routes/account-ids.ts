import { dryRunQuery, operationIdParam } from "../../platform/schema/fields";
import type { RouteInput, RouteSpec } from "../../platform/http/routes";
import { accountIdsBody, ATTACHMENT_CSV_COLUMNS, MAX_ACCOUNT_IDS_PER_CALL } from "../schemas";

type AccountIdsSpec = RouteSpec<typeof operationIdParam, typeof dryRunQuery, typeof accountIdsBody>;

/**
 * What attach and detach take alike: the path, roles, a list of account ids (JSON or CSV) and
 * dry runs. Each route spreads it into its own declaration and adds what it does and answers.
 */
export const ACCOUNT_IDS_REQUEST = {
  path: "/v1/operations/:operationId/accounts",
  tag: "Accounts",
  roles: ["OPERATOR", "ACCOUNT"],
  params: operationIdParam,
  query: dryRunQuery,
  body: accountIdsBody,
  batch: { maxItems: MAX_ACCOUNT_IDS_PER_CALL },
  csvImport: { columns: { allowed: ATTACHMENT_CSV_COLUMNS, required: ["accountId"] }, toItem: (cells) => cells.accountId },
} satisfies Partial<AccountIdsSpec> as Pick<AccountIdsSpec, "path" | "tag" | "roles" | "params" | "query" | "body" | "batch" | "csvImport"> & {
  params: typeof operationIdParam;
  query: typeof dryRunQuery;
  body: typeof accountIdsBody;
};

/** The inputs of a route declared with ACCOUNT_IDS_REQUEST, once validated. */
export type AccountIdsInputs = RouteInput<typeof operationIdParam, typeof dryRunQuery, typeof accountIdsBody>;
