import * as z from "zod";
import { operationAccountTotals } from "../operations/tables";
import type { ListDefinition } from "../platform/data/pagination";
import { calendarDay, listEnvelope } from "../platform/schema/fields";
import { commaList, pageQueryShape } from "../platform/schema/list-query";

const count = (description: string) => z.number().int().describe(description);
const refusals = z
  .object({ quota: count("Placements refused below a quota minimum."), allocation: count("Placements refused beyond an allocation.") })
  .meta({ id: "RefusalCounts" });

export const operationTotalsRepresentation = z
  .object({
    orders: count("PLACED orders."),
    cancelled: count("Orders cancelled."),
    accounts: count("Accounts with at least one PLACED order."),
    amount: count("Σ of the PLACED orders' totals, minor currency units."),
    refusals,
    lines: z.object({
      ordered: count("Lines with an orderedQuantity above 0."),
      belowRecommended: count("Lines with a recommendedQuantity whose orderedQuantity is below it."),
      exhausted: count("Lines whose pool is used up (allocation)."),
    }),
    asOf: z.string().describe("When these figures were read."),
  })
  .meta({
    id: "OperationTotals",
    examples: [
      {
        orders: 412,
        cancelled: 9,
        accounts: 188,
        amount: 18_450_000,
        refusals: { quota: 37, allocation: 0 },
        lines: { ordered: 4_120, belowRecommended: 2_310, exhausted: 0 },
        asOf: "2026-03-20T09:00:00.000Z",
      },
    ],
  });

export const accountTotalsList: ListDefinition = {
  name: "operation-account-totals",
  sortable: { accountId: operationAccountTotals.accountId, orders: operationAccountTotals.orders, amount: operationAccountTotals.amount },
  id: operationAccountTotals.accountId,
  defaultSort: "accountId",
  maxLimit: 1000,
};

export const accountTotalsQuery = z.strictObject({
  ...pageQueryShape(accountTotalsList),
  ordered: z
    .enum(["true", "false"])
    .transform((value) => value === "true")
    .optional()
    .describe("false: the accounts without a PLACED order (attached ones that have not ordered, those refused or cancelled only); true: those with one."),
  accountIds: commaList("Comma list of account ids."),
});
export type AccountTotalsQuery = z.output<typeof accountTotalsQuery>;

export const accountTotalsRepresentation = z
  .object({
    accountId: z.string(),
    accountName: z.string().nullable().describe("Its name in the directory (null: not in it)."),
    attached: z.boolean().describe("Attached to the (PRIVATE) Operation."),
    orders: count("Its PLACED orders."),
    amount: count("Their amount, minor currency units."),
    cancelled: count("Its orders cancelled."),
    lastOrderAt: z.string().nullable().describe("When it last placed an order (null: never)."),
    refusals,
  })
  .meta({
    id: "AccountTotals",
    examples: [
      {
        accountId: "A-100",
        accountName: "Maison Dupont",
        attached: true,
        orders: 3,
        amount: 128_000,
        cancelled: 0,
        lastOrderAt: "2026-03-19T16:02:11.000Z",
        refusals: { quota: 1, allocation: 0 },
      },
    ],
  });
export const accountTotalsPage = listEnvelope(accountTotalsRepresentation).meta({ id: "AccountTotalsPage" });

/** The longest span of days one answer covers. */
export const MAX_DAYS = 366;
/** The span when the request names none: the 30 days ending today. */
export const DEFAULT_DAYS = 30;

export const dailyTotalsQuery = z
  .strictObject({
    from: calendarDay.optional().describe(`The first UTC day (default: ${DEFAULT_DAYS - 1} days before to).`),
    to: calendarDay.optional().describe("The last UTC day (default: today, or from's 29th day after)."),
  })
  .refine((query) => query.from === undefined || query.to === undefined || query.from <= query.to, { message: "from must not be after to", path: ["from"] });
export type DailyTotalsQuery = z.output<typeof dailyTotalsQuery>;

export const dailyTotalsRepresentation = z
  .object({
    from: z.string(),
    to: z.string(),
    items: z.array(
      z.object({
        day: z.string(),
        orders: count("Orders placed that day (cancelled since or not)."),
        amount: count("Their amount, minor currency units."),
        cancellations: count("Orders cancelled that day."),
        cancelledAmount: count("Their amount."),
        refusals,
      }),
    ),
  })
  .meta({
    id: "DailyTotals",
    examples: [
      {
        from: "2026-03-19",
        to: "2026-03-20",
        items: [
          { day: "2026-03-19", orders: 31, amount: 1_210_000, cancellations: 1, cancelledAmount: 42_000, refusals: { quota: 4, allocation: 0 } },
          { day: "2026-03-20", orders: 12, amount: 480_500, cancellations: 0, cancelledAmount: 0, refusals: { quota: 0, allocation: 0 } },
        ],
      },
    ],
  });
