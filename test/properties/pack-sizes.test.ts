import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { callRoute, expectProblem, expectStatus, newTenant } from "../helpers/client";
import { cartBody, line, setUpOperation } from "../helpers/setup";
import { routes } from "../helpers/routes";

/*
 * Pack sizes against a reference written from the rules alone: random lines are accepted or refused
 * with exactly the errors[] the reference expects, and random orders get exactly the reference's
 * comparison issues and cart errors (nearest valid quantities included).
 */
const settings = { numRuns: 25, endOnFailure: true };

interface LineDraft {
  variantExternalId: string;
  minQuantity: number;
  maxQuantity: number;
  recommendedQuantity: number | null;
  quantityIncrement: number;
}

/** The errors a new line earns: bounds first, then each quantity that is not a multiple of the pack size. */
function referenceLineErrors(lines: LineDraft[]) {
  return lines.flatMap((l, index) => {
    const errors: [number, string, string][] = [];
    if (l.minQuantity > l.maxQuantity) errors.push([index, "maxQuantity", "min_gt_max"]);
    if (l.recommendedQuantity !== null && (l.recommendedQuantity < l.minQuantity || l.recommendedQuantity > l.maxQuantity)) {
      errors.push([index, "recommendedQuantity", "recommended_out_of_bounds"]);
    }
    for (const field of ["minQuantity", "maxQuantity", "recommendedQuantity"] as const) {
      const value = l[field];
      if (value !== null && value % l.quantityIncrement !== 0) errors.push([index, field, "increment_mismatch"]);
    }
    return errors;
  });
}

const randomLines = fc.uniqueArray(
  fc.record({
    variantExternalId: fc.constantFrom("A", "B", "C", "D", "E", "F"),
    minQuantity: fc.integer({ min: 0, max: 24 }),
    maxQuantity: fc.integer({ min: 0, max: 24 }),
    recommendedQuantity: fc.option(fc.integer({ min: 0, max: 24 }), { nil: null }),
    quantityIncrement: fc.integer({ min: 1, max: 6 }),
  }),
  { minLength: 1, maxLength: 6, selector: (l) => l.variantExternalId },
);

/** Valid lines by construction: both bounds are multiples of the pack size. */
const validLines = fc.uniqueArray(
  fc
    .record({
      variantExternalId: fc.constantFrom("A", "B", "C", "D", "E", "F"),
      quantityIncrement: fc.integer({ min: 1, max: 6 }),
      low: fc.integer({ min: 0, max: 4 }),
      span: fc.integer({ min: 0, max: 4 }),
    })
    .map(({ variantExternalId, quantityIncrement, low, span }) => ({
      variantExternalId,
      quantityIncrement,
      minQuantity: low * quantityIncrement,
      maxQuantity: (low + span) * quantityIncrement,
    })),
  { minLength: 1, maxLength: 6, selector: (l) => l.variantExternalId },
);

type ValidLine = { variantExternalId: string; quantityIncrement: number; minQuantity: number; maxQuantity: number };

function referenceIssue(l: ValidLine, quantity: number) {
  if (quantity < l.minQuantity) return "below_min";
  if (quantity > l.maxQuantity) return "above_max";
  if (quantity % l.quantityIncrement !== 0) return "increment_mismatch";
  return null;
}

/** The nearest valid quantities by walking outward one unit at a time (no arithmetic shared with the service). */
function referenceNearest(l: ValidLine, quantity: number): [number | null, number | null] {
  const valid = (q: number) => q >= l.minQuantity && q <= l.maxQuantity && q % l.quantityIncrement === 0;
  let below: number | null = null;
  for (let q = quantity; q >= l.minQuantity; q--)
    if (valid(q)) {
      below = q;
      break;
    }
  let above: number | null = null;
  for (let q = quantity; q <= l.maxQuantity; q++)
    if (valid(q)) {
      above = q;
      break;
    }
  return [below, above];
}

describe("pack sizes against a reference", () => {
  it("PUT lines: accepted exactly when the reference finds nothing, else its errors[]", async () => {
    const op = await newTenant();
    await fc.assert(
      fc.asyncProperty(randomLines, async (lines) => {
        const operation = await setUpOperation(op, { type: "PUBLIC", lines: [], status: "DRAFT" });
        const answer = await callRoute(op, routes.putLines, { params: { operationId: operation.id }, body: lines });
        const expected = referenceLineErrors(lines);
        if (expected.length === 0) {
          expect(answer.status).toBe(200);
        } else {
          expect(answer.status).toBe(422);
          expect(expectProblem(answer, 422, "line_bounds_invalid").errors?.map((e) => [e.index, e.field, e.code])).toEqual(expected);
        }
      }),
      settings,
    );
  });

  it("compare and carts: the reference's issue per line, with the nearest valid quantities", async () => {
    const op = await newTenant();
    await fc.assert(
      fc.asyncProperty(
        validLines.chain((lines) =>
          fc.tuple(
            fc.constant(lines),
            fc
              .subarray(lines, { minLength: 1 })
              .chain((chosen) =>
                fc.tuple(...chosen.map((l) => fc.integer({ min: 0, max: l.maxQuantity + l.quantityIncrement + 1 }).map((quantity) => ({ line: l, quantity })))),
              ),
          ),
        ),
        async ([lines, ordered]) => {
          const operation = await setUpOperation(op, { type: "PUBLIC", lines });
          const comparison = await callRoute(op, routes.compare, {
            params: { operationId: operation.id },
            body: { lines: ordered.map(({ line: l, quantity }) => ({ variantExternalId: l.variantExternalId, quantity })) },
          });
          const expectedIssues = ordered.flatMap(({ line: l, quantity }) => {
            const code = referenceIssue(l, quantity);
            return code ? [{ variantExternalId: l.variantExternalId, code }] : [];
          });
          const orderedKeys = new Set(ordered.map(({ line: l }) => l.variantExternalId));
          const missing = lines.filter((l) => l.minQuantity > 0 && !orderedKeys.has(l.variantExternalId));
          expect(comparison.status).toBe(200);
          const body = expectStatus(comparison, 200);
          expect(body.issues.filter((i) => i.code !== "missing_required").map((i) => ({ variantExternalId: i.variantExternalId, code: i.code }))).toEqual(
            expectedIssues,
          );
          expect(body.summary.incrementMismatch).toBe(expectedIssues.filter((i) => i.code === "increment_mismatch").length);
          expect(body.ok).toBe(expectedIssues.length === 0 && missing.length === 0);

          const cart = await callRoute(op, routes.createCart, {
            body: cartBody(
              operation.id,
              "A1",
              ordered.map(({ line: l, quantity }) => line(l.variantExternalId, quantity)),
            ),
          });
          if (expectedIssues.length === 0) {
            expect(cart.status).toBe(201);
            return;
          }
          expect(cart.status).toBe(422);
          const expectedErrors = ordered.flatMap(({ line: l, quantity }, index) => {
            const code = referenceIssue(l, quantity);
            if (!code) return [];
            return [
              { index, code, ...(code === "increment_mismatch" && { quantityIncrement: l.quantityIncrement, nearestValid: referenceNearest(l, quantity) }) },
            ];
          });
          expect(
            expectProblem(cart, 422, "order_lines_invalid").errors?.map((e) => ({
              index: e.index,
              code: e.code,
              ...(e.code === "increment_mismatch" && { quantityIncrement: e.quantityIncrement, nearestValid: e.nearestValid }),
            })),
          ).toEqual(expectedErrors);
        },
      ),
      settings,
    );
  });
});
