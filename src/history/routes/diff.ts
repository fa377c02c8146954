import { findOperation } from "../../operations/aggregate";
import { ApiError } from "../../platform/core/errors";
import { listContextOf } from "../../platform/http/context";
import { defineRoute } from "../../platform/http/routes";
import { operationIdParam } from "../../platform/schema/fields";
import { diffVersions } from "../diff";
import { diffQuery, operationDiff } from "../schemas";

export default defineRoute(
  {
    method: "get",
    path: "/v1/operations/:operationId/diff",
    operationId: "diffOperationVersions",
    summary: "Compare two versions of an Operation",
    description:
      "What differs from version `from` to version `to` (the current one when omitted, kept by nextToken: later pages compare to the version the first page did): the Operation's fields, its accounts, and its lines a page at a time by variantExternalId, each field from its value at `from` (previous) to its value at `to` (next). `from` may be after `to` (the difference backwards). A version the Operation's history does not cover: 404 version_not_found.",
    tag: "History",
    roles: ["OPERATOR"],
    params: operationIdParam,
    query: diffQuery,
    responses: { 200: { description: "The difference (one page of its lines).", schema: operationDiff } },
    errors: ["not_found", "version_not_found", "invalid_next_token"],
  },
  async function handleDiffOperationVersions(c, { params, query }) {
    const currentVersion = async () => {
      const current = await findOperation(c.var.db, c.var.principal.tenantId, params.operationId);
      if (!current) throw new ApiError("not_found", `Operation ${params.operationId} not found; name the version to compare to (to) for a deleted one.`);
      return current.version;
    };
    return c.json(await diffVersions(listContextOf(c), params.operationId, query, currentVersion));
  },
);
