import { readFileSync } from "node:fs";
import type { ApiLimits } from "./src/shared/limits";

/** The API's limits the console works within, read from the OpenAPI document (see src/shared/limits.ts). */

type Node = { $ref?: string; [key: string]: unknown };

export function readApiLimits(specPath: string): ApiLimits {
  const spec = JSON.parse(readFileSync(specPath, "utf8"));
  const resolve = (node: Node): Node =>
    node?.$ref
      ? resolve(
          node.$ref
            .split("/")
            .slice(1)
            .reduce((at: Node, key) => at[key] as Node, spec),
        )
      : node;
  const operation = (path: string, method: string) => spec.paths[path][method] as { requestBody: Node; parameters: Node[] };
  const body = (path: string, method: string) => {
    const content = resolve(operation(path, method).requestBody).content as Record<string, { schema: Node }>;
    return resolve(content["application/json"].schema);
  };
  const parameter = (path: string, name: string, method = "get") => {
    const found = operation(path, method)
      .parameters.map(resolve)
      .find((p) => p.name === name);
    if (!found) throw new Error(`${path} takes no ${name}`);
    return resolve(found.schema as Node);
  };
  const number = (value: unknown, what: string) => {
    if (typeof value !== "number") throw new Error(`the OpenAPI document states no ${what}`);
    return value;
  };
  const lines = "/v1/operations/{operationId}/lines";
  const rules = "/v1/buying-policies/quotas/rules";
  const caps = "/v1/operations/{operationId}/allocations/accounts";
  const plan = "/v1/operations/{operationId}/allocations/plan";
  const impact = body("/v1/buying-policies/quotas/impact", "post");
  return {
    linesPerPut: number(body(lines, "put").maxItems, "lines per PUT"),
    linesPerPage: number(parameter(lines, "limit").maximum, "lines per page"),
    variantIdsPerQuery: number(parameter(lines, "variantIds").maxItems, "variantIds per query"),
    rulesPerPut: number(body(rules, "put").maxItems, "rules per PUT"),
    rulesPerPage: number(parameter(rules, "limit").maximum, "rules per page"),
    impactChanges: number(resolve((impact.properties as Record<string, Node>).changes).maxItems, "changes per impact request"),
    impactAccountsPerPage: number(parameter("/v1/buying-policies/quotas/impact", "limit", "post").maximum, "impact accounts per page"),
    diffPerPage: number(parameter("/v1/operations/{operationId}/diff", "limit").maximum, "diff items per page"),
    historyPerPage: number(parameter("/v1/history", "limit").maximum, "history records per page"),
    keysPerPage: number(parameter("/v1/keys", "limit").maximum, "keys per page"),
    // A plan's page is a valid body of PUT …/allocations/accounts: its largest is what one PUT takes (and one of …/allocations, the same limit).
    capsPerPut: number(resolve((body(plan, "post").properties as Record<string, Node>).limit).maximum, "caps per plan page"),
    capsPerPage: number(parameter(caps, "limit").maximum, "caps per page"),
    capVariantIdsPerQuery: number(parameter(caps, "variantIds").maxItems, "variantIds per caps query"),
  };
}
