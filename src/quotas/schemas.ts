import { sql } from "drizzle-orm";
import * as z from "zod";
import { DEFAULT_LIMIT, type ListDefinition } from "../platform/data/pagination";
import { pageQueryShape } from "../platform/schema/list-query";
import { amount, dateTime, externalKey, identifierText, keyedBatch, listEnvelope, pathId, queryFlag, queryInteger } from "../platform/schema/fields";
import { toIsoSeconds } from "../platform/core/time";
import { quotaRules } from "./tables";
import { explanation, sourceKind } from "../common/rule-explanation";

export const ruleList: ListDefinition = {
  name: "quota_rules",
  sortable: {
    minimum: quotaRules.minimum,
    createdAt: quotaRules.createdAt,
    // Unset scope keys sort first, as the empty string: sort expressions must be non-null.
    accountId: sql`coalesce(${quotaRules.accountId}, '')`,
    supplierId: sql`coalesce(${quotaRules.supplierId}, '')`,
  },
  id: quotaRules.id,
  defaultSort: "createdAt",
  maxLimit: 500,
};

/** Evaluate takes up to this many orders a call. */
export const MAX_EVALUATE_ORDERS = 100;

/** What a minimum does to an order below it. */
export const enforcement = z
  .enum(["BLOCK", "WARN"])
  .describe("BLOCK: an order below the minimum is refused (422 quota_min_not_met). WARN: it is placed (201) and carries the shortfall in warnings.");
const enforcementInput = enforcement.default("BLOCK").describe(`${enforcement.description} Omitted: BLOCK.`);

const scopeKey = (what: string) => externalKey.nullable().optional().describe(`${what}; omitted or null: the rule does not restrict it.`);

/** A rule as clients write it: POST and PUT take the same full representation (minus ids and timestamps). */
export const ruleBody = z
  .strictObject({
    accountId: scopeKey("The account the rule applies to"),
    supplierId: scopeKey("The supplier the rule applies to"),
    storeId: scopeKey("The store the rule applies to (null matches every store)"),
    minimum: amount.describe("Minimum order amount in minor currency units."),
    enforcement: enforcementInput,
  })
  .refine((rule) => rule.accountId != null || rule.supplierId != null, {
    message: "at least one of accountId and supplierId must be set",
    path: ["accountId"],
  })
  .meta({ id: "QuotaRuleWrite", examples: [{ accountId: "acc-2001", supplierId: "sup-77", storeId: null, minimum: 50000 }] });
export type RuleBody = z.output<typeof ruleBody>;

/** A rule body's fields as a rule stores them: an unset scope key is null. */
export function ruleFieldsOf(body: RuleBody) {
  return {
    accountId: body.accountId ?? null,
    supplierId: body.supplierId ?? null,
    storeId: body.storeId ?? null,
    minimum: body.minimum,
    enforcement: body.enforcement,
  };
}

export const ruleIdParam = z.strictObject({ ruleId: pathId("The Quotas Rule's id.") });

export const listRulesQuery = z.strictObject({
  ...pageQueryShape(ruleList),
  accountId: externalKey.optional().describe("Only rules of exactly this accountId."),
  supplierId: externalKey.optional().describe("Only rules of exactly this supplierId."),
  storeId: externalKey.optional().describe("Only rules of exactly this storeId."),
});
export type ListRulesQuery = z.output<typeof listRulesQuery>;

export const ruleRepresentation = z
  .object({
    id: z.string(),
    accountId: z.string().nullable(),
    supplierId: z.string().nullable(),
    storeId: z.string().nullable(),
    minimum: z.number().int(),
    enforcement,
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({
    id: "QuotaRule",
    examples: [
      {
        id: "qr_01JQ4A2B3C4D5E6F7G8H9J0K1M",
        accountId: "acc-2001",
        supplierId: "sup-77",
        storeId: null,
        minimum: 50000,
        enforcement: "BLOCK",
        createdAt: "2026-02-14T09:12:00Z",
        updatedAt: "2026-02-14T09:12:00Z",
      },
    ],
  });
export type RuleRepresentation = z.infer<typeof ruleRepresentation>;

export const quotaRulePage = listEnvelope(ruleRepresentation).meta({ id: "QuotaRulePage" });

export const quotaDefaultBody = z
  .strictObject({
    minimum: amount.describe("Minimum order amount in minor currency units when no rule matches."),
    enforcement: enforcementInput,
  })
  .meta({ id: "QuotaDefaultWrite", examples: [{ minimum: 20000, enforcement: "WARN" }] });

export const quotaDefaultRepresentation = z
  .object({ minimum: z.number().int(), enforcement })
  .meta({ id: "QuotaDefault", examples: [{ minimum: 20000, enforcement: "WARN" }] });

const evaluatedOrder = z.strictObject({
  accountId: externalKey,
  supplierId: externalKey.nullable().optional().describe("Omitted or null: an order with no supplier (only Account-only rules and the default can match)."),
  storeId: externalKey.nullable().optional().describe("Omitted: the svc-store header (if any). null: no store, so only rules for every store match."),
  amount: amount.describe("The order amount in minor currency units."),
});

export const evaluateBody = z
  .strictObject({
    orders: z
      .array(evaluatedOrder)
      .min(1)
      .max(MAX_EVALUATE_ORDERS)
      .describe(`1–${MAX_EVALUATE_ORDERS} orders; more answers 413 batch_too_large (checked before the orders themselves).`),
  })
  .meta({
    id: "EvaluationRequest",
    examples: [
      {
        orders: [
          { accountId: "acc-2001", supplierId: "sup-77", storeId: "store-paris", amount: 42000 },
          { accountId: "acc-2001", supplierId: "sup-91", amount: 65000 },
        ],
      },
    ],
  });

export const evaluateQuery = z.strictObject({
  explain: queryFlag("true adds an explanation per result: the candidate rules of each level and why each lost."),
});

/** The columns of a rules CSV export; an import (bulk PUT) reads the scope and minimum and ignores id, so an export imports back. */
export const RULE_CSV_COLUMNS = ["id", "accountId", "supplierId", "storeId", "minimum", "enforcement"] as const;

/** Rules written or removed in one call at most. */
export const MAX_RULES_PER_CALL = 5000;

/** A rule's scope as one key: the unique (accountId, supplierId, storeId) of the tenant. */
export const scopeKeyOf = (rule: { accountId?: string | null; supplierId?: string | null; storeId?: string | null }) =>
  JSON.stringify([rule.accountId ?? null, rule.supplierId ?? null, rule.storeId ?? null]);

export const upsertRulesBody = keyedBatch(ruleBody, { field: "scope", keyOf: scopeKeyOf, max: MAX_RULES_PER_CALL, what: "rule" })
  .describe(
    `Up to ${MAX_RULES_PER_CALL} rules, upserted by scope (accountId, supplierId, storeId). A scope may appear once per call (a repeat is 400 validation_failed naming each repeated index).`,
  )
  .meta({
    id: "QuotaRulesUpsert",
    examples: [
      [
        { accountId: "acc-2001", supplierId: "sup-77", minimum: 50000 },
        { supplierId: "sup-91", storeId: "store-paris", minimum: 30000 },
      ],
    ],
  });
export const upsertRulesResponse = z
  .object({
    created: z.number().int().describe("Rules of a scope the tenant had no rule for."),
    updated: z.number().int().describe("Rules whose minimum or enforcement changed."),
    unchanged: z.number().int().describe("Rules sent with the minimum and enforcement they already had."),
  })
  .meta({ id: "QuotaRulesUpsertResult", examples: [{ created: 1, updated: 0, unchanged: 1 }] });
export type UpsertRulesResult = z.infer<typeof upsertRulesResponse>;

export const deleteRulesBody = z
  .array(identifierText(100))
  .min(1, "send at least one rule id")
  .max(MAX_RULES_PER_CALL)
  .describe(`Up to ${MAX_RULES_PER_CALL} rule ids; repeats count once.`)
  .meta({ id: "QuotaRulesDelete", examples: [["qr_01JQ4A2B3C4D5E6F7G8H9J0K1M", "qr_01JQ4A2B3C4D5E6F7G8H9J0K2N"]] });
export const deleteRulesResponse = z
  .object({
    deleted: z.number().int(),
    notFound: z.array(z.string()).describe("Ids sent that are not rules of the tenant (each once, in the order sent)."),
  })
  .meta({ id: "QuotaRulesDeleteResult", examples: [{ deleted: 1, notFound: ["qr_01JQ4A2B3C4D5E6F7G8H9J0K2N"] }] });
export type DeleteRulesResult = z.infer<typeof deleteRulesResponse>;

export const evaluationResult = z
  .object({
    allowed: z.boolean().describe("false only below a BLOCK minimum; below a WARN minimum the order is allowed, with reason and shortfall set."),
    reason: z.enum(["quota_min_not_met"]).nullable().describe("quota_min_not_met whenever the amount is below the minimum (BLOCK or WARN)."),
    effectiveMinimum: z.number().int(),
    amount: z.number().int(),
    shortfall: z.number().int().describe("minimum − amount when below the minimum (BLOCK or WARN), else 0."),
    source: z.object({ kind: sourceKind, ruleId: z.string().nullable() }),
    enforcement: enforcement.describe("The enforcement of the rule or default that decided."),
    explanation: explanation.optional().describe("Only with explain=true."),
  })
  .meta({ id: "EvaluationResult" });

export const evaluateResponse = z.object({ results: z.array(evaluationResult) }).meta({
  id: "Evaluation",
  examples: [
    {
      results: [
        {
          allowed: false,
          reason: "quota_min_not_met",
          effectiveMinimum: 50000,
          amount: 42000,
          shortfall: 8000,
          source: { kind: "ACCOUNT_SUPPLIER", ruleId: "qr_01JQ4A2B3C4D5E6F7G8H9J0K1M" },
          enforcement: "BLOCK",
        },
        {
          allowed: true,
          reason: "quota_min_not_met",
          effectiveMinimum: 70000,
          amount: 65000,
          shortfall: 5000,
          source: { kind: "DEFAULT", ruleId: null },
          enforcement: "WARN",
        },
      ],
    },
  ],
});

/** The window an impact replays when the request names none, and the longest it may name. */
export const IMPACT_DEFAULT_DAYS = 90;
export const IMPACT_MAX_DAYS = 366;
const DAY_MS = 86_400_000;

const ruleIdOfChange = pathId("The id of a Quotas Rule of the tenant (as the rule is today, or after the changes before this one).");

const createChange = z
  .strictObject({ op: z.literal("create"), rule: ruleBody })
  .meta({ id: "QuotaRuleChangeCreate", description: "A new rule, as POST …/rules would create it: 409 duplicate_scope if its scope is taken." });
const replaceChange = z.strictObject({ op: z.literal("replace"), ruleId: ruleIdOfChange, rule: ruleBody }).meta({
  id: "QuotaRuleChangeReplace",
  description: "A rule replaced, as PUT …/rules/{ruleId} would: 404 not_found for an unknown rule, 409 duplicate_scope onto another rule's scope.",
});
const deleteChange = z
  .strictObject({ op: z.literal("delete"), ruleId: ruleIdOfChange })
  .meta({ id: "QuotaRuleChangeDelete", description: "A rule deleted, as DELETE …/rules/{ruleId} would: 404 not_found for an unknown rule." });
export const ruleChange = z.discriminatedUnion("op", [createChange, replaceChange, deleteChange]);
export type RuleChangeInput = z.output<typeof ruleChange>;

export const impactBody = z
  .strictObject({
    changes: z
      .array(ruleChange)
      .max(MAX_RULES_PER_CALL)
      .describe(
        `0–${MAX_RULES_PER_CALL} changes, applied in order as the writes would be one after another; more answers 413 batch_too_large. Empty only with a default.`,
      ),
    default: quotaDefaultBody.optional().describe("The default minimum as it would be; omitted: as it is."),
    from: dateTime.optional().describe(`Start of the window (included, to the second). Omitted: ${IMPACT_DEFAULT_DAYS} days before to.`),
    to: dateTime.optional().describe("End of the window (included, to the second). Omitted: now."),
  })
  .superRefine((body, ctx) => {
    if (!body.changes.length && !body.default) ctx.addIssue({ code: "custom", path: ["changes"], message: "send at least one change, or a default" });
    if (body.from === undefined) return;
    const to = body.to ?? toIsoSeconds(Date.now());
    if (body.from > to) ctx.addIssue({ code: "custom", path: ["from"], message: `from must not be after to (${body.to === undefined ? "now" : "its end"})` });
    else if (Date.parse(to) - Date.parse(body.from) > IMPACT_MAX_DAYS * DAY_MS) {
      ctx.addIssue({ code: "custom", path: [body.to === undefined ? "from" : "to"], message: `the window spans at most ${IMPACT_MAX_DAYS} days` });
    }
  })
  .meta({
    id: "QuotaImpactRequest",
    examples: [
      {
        changes: [
          { op: "replace", ruleId: "qr_01JQ4A2B3C4D5E6F7G8H9J0K1M", rule: { accountId: "acc-2001", supplierId: "sup-77", minimum: 20000 } },
          { op: "create", rule: { supplierId: "sup-91", minimum: 15000, enforcement: "WARN" } },
        ],
        from: "2026-01-01T00:00:00Z",
      },
    ],
  });
export type ImpactBody = z.output<typeof impactBody>;

export const impactQuery = z.strictObject({
  limit: queryInteger(1, 500, DEFAULT_LIMIT).describe("Accounts per page, 1–500."),
  nextToken: z.string().min(1).max(2000).optional().describe("Opaque token from the previous page, sent with the same body."),
});
export type ImpactQuery = z.output<typeof impactQuery>;

const verdictCounts = z.object({
  blocked: z.number().int().describe("Orders below a BLOCK minimum: refused."),
  warned: z.number().int().describe("Orders below a WARN minimum: placed with a warning."),
});

const impactAccount = z
  .object({
    accountId: z.string(),
    supplierId: z.string().nullable(),
    storeId: z.string().nullable(),
    orders: z.number().int().describe("This key's orders in the window."),
    newlyBlocked: z.number().int(),
    newlyAllowed: z.number().int(),
    minimumBefore: z.number().int(),
    minimumAfter: z.number().int(),
  })
  .meta({ id: "QuotaImpactAccount" });

export const impactResponse = z
  .object({
    ordersConsidered: z.number().int().describe("Orders placed or refused in the window, one per supplier of each (as evaluate takes them)."),
    before: verdictCounts.describe("Against today's rules."),
    after: verdictCounts.describe("Against today's rules with the changes."),
    newlyBlocked: z.number().int().describe("Orders allowed today (met or warned) that the changes would refuse."),
    newlyAllowed: z.number().int().describe("Orders refused today that the changes would let through."),
    accounts: z
      .array(impactAccount)
      .describe(
        "One entry per (accountId, supplierId, storeId) whose minimum or outcome changes: most newly blocked first, then most newly allowed, then by key.",
      ),
    nextToken: z.string().nullable().describe("Send it back as nextToken, with the same body, for the next accounts; null on the last page."),
  })
  .meta({
    id: "QuotaImpact",
    examples: [
      {
        ordersConsidered: 1840,
        before: { blocked: 12, warned: 30 },
        after: { blocked: 19, warned: 30 },
        newlyBlocked: 8,
        newlyAllowed: 1,
        accounts: [
          {
            accountId: "acc-2001",
            supplierId: "sup-77",
            storeId: null,
            orders: 14,
            newlyBlocked: 8,
            newlyAllowed: 0,
            minimumBefore: 15000,
            minimumAfter: 20000,
          },
        ],
        nextToken: null,
      },
    ],
  });
export type ImpactAnswer = z.infer<typeof impactResponse>;
export type ImpactAccount = z.infer<typeof impactAccount>;
