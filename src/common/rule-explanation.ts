import * as z from "zod";

// The explanation of an evaluation, written once: this schema documents and types the answer, and
// the pure resolver (rule-index.ts, which the console also runs) builds values of its type. That
// import is type-only, so the browser bundle takes no zod from here.

/** Who decided an order: a rule of one of the three levels, or the tenant default. */
export const sourceKind = z.enum(["ACCOUNT_SUPPLIER", "ACCOUNT", "SUPPLIER", "DEFAULT"]);

const explainedCandidate = z.object({
  ruleId: z.string(),
  accountId: z.string().nullable(),
  supplierId: z.string().nullable(),
  storeId: z.string().nullable(),
  minimum: z.number().int(),
  outcome: z.enum(["selected", "lower_minimum", "tie_older_rule_wins", "shadowed_by_higher_level", "store_mismatch"]),
});

export const explanation = z.object({
  storeId: z.string().nullable().describe("The store the order was evaluated for (its storeId, else svc-store)."),
  levels: z.array(
    z.object({
      level: z.enum(["ACCOUNT_SUPPLIER", "ACCOUNT", "SUPPLIER"]),
      applicable: z.boolean().describe("false: the order has no supplier, so this level cannot match."),
      candidates: z.array(explainedCandidate).describe("Rules of this level's key, best first: matching ones, then other stores' (listed up to a cap)."),
      omittedStoreMismatches: z.number().int().describe("Rules of this key for other stores left out of candidates to keep the answer short."),
    }),
  ),
  default: z.object({ minimum: z.number().int(), outcome: z.enum(["selected", "shadowed_by_higher_level"]) }),
  decidedBy: z.object({ kind: sourceKind, ruleId: z.string().nullable() }),
});

export type Explanation = z.output<typeof explanation>;
export type ExplainedLevel = Explanation["levels"][number];
export type ExplainedCandidate = ExplainedLevel["candidates"][number];
export type CandidateOutcome = ExplainedCandidate["outcome"];
