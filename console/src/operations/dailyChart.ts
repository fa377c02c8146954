import { day } from "../shared/format";
import { t } from "../shared/i18n";

/** The geometry of the orders-and-refusals chart, per day, in the chart's own units (its viewBox). */

export interface Day {
  day: string;
  orders: number;
  refusals: { quota: number; allocation: number };
}

export interface DayBars {
  day: string;
  orders: number;
  refusals: number;
  x: number;
  /** Each bar's width; the refusals' stands right of the orders'. */
  width: number;
  ordersTop: number;
  refusalsTop: number;
}

/** Room under the bars, below the axis line. */
export const AXIS = 2;

export function dailyBars(days: readonly Day[], width: number, height: number): { max: number; bars: DayBars[] } {
  const refusalsOf = (day: Day) => day.refusals.quota + day.refusals.allocation;
  const max = Math.max(1, ...days.map((day) => Math.max(day.orders, refusalsOf(day))));
  const slot = width / Math.max(1, days.length);
  const bar = Math.max(1, slot * 0.4);
  const plot = height - AXIS;
  const top = (value: number) => plot - (value / max) * plot;
  return {
    max,
    bars: days.map((day, i) => ({
      day: day.day,
      orders: day.orders,
      refusals: refusalsOf(day),
      x: i * slot + slot * 0.1,
      width: bar,
      ordersTop: top(day.orders),
      refusalsTop: top(refusalsOf(day)),
    })),
  };
}

/** The chart in a sentence (its accessible name): the span, the totals and the busiest day. */
export function dailySummary(days: readonly Day[]): string {
  if (!days.length) return t("totals.noDay");
  const orders = days.reduce((sum, day) => sum + day.orders, 0);
  const refusals = days.reduce((sum, day) => sum + day.refusals.quota + day.refusals.allocation, 0);
  const busiest = days.reduce((best, day) => (day.orders > best.orders ? day : best), days[0]);
  return t("totals.chartSummary", { from: day(days[0].day), to: day(days.at(-1)!.day), orders, refusals, busiest: day(busiest.day), most: busiest.orders });
}
