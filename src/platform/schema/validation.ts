import type * as z from "zod";
import { ApiError, type ProblemItem } from "../core/errors";

/** zod issues → the `errors[]` of a 400 validation_failed; an array body's index becomes `index`. */
export function zodProblemItems(error: z.ZodError, target: string): ProblemItem[] {
  return error.issues.flatMap(namedIssues).map((issue) => {
    const path = issue.path.map(String);
    const item: ProblemItem = {
      field: [target, ...path].join("."),
      // A custom refinement may name its own code with `params: { code }` (e.g. duplicate_key).
      code: issue.code === "custom" && typeof issue.params?.code === "string" ? issue.params.code : issue.code,
      message: issue.message,
    };
    if (target === "body" && typeof issue.path[0] === "number") item.index = issue.path[0];
    return item;
  });
}

/**
 * A union of strict objects (one shape or another) fails as a whole; when exactly one alternative
 * took the keys given, its own issues name the field that is wrong, so those are the answer.
 */
function namedIssues(issue: z.core.$ZodIssue): z.core.$ZodIssue[] {
  if (issue.code !== "invalid_union") return [issue];
  const recognised = issue.errors.filter((branch) => !branch.some((inner) => inner.code === "unrecognized_keys" && inner.path.length === 0));
  if (recognised.length !== 1 || recognised[0].length === 0) return [issue];
  return recognised[0].flatMap((inner) => namedIssues({ ...inner, path: [...issue.path, ...inner.path] }));
}

export function validationError(items: ProblemItem[], detail = "The request is not valid; see errors[]."): ApiError {
  return new ApiError("validation_failed", detail, { errors: items });
}

export function throwZodError(error: z.ZodError, target: string): never {
  throw validationError(zodProblemItems(error, target));
}

/** The one answer to a body that is not JSON, wherever it is found unparsable. */
export function invalidJsonError(error: unknown): ApiError {
  return new ApiError("validation_failed", "The body is not valid JSON.", {
    errors: [{ field: "body", code: "invalid_json", message: error instanceof Error ? error.message : String(error) }],
  });
}
