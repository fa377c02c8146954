import { AXIS, dailyBars, dailySummary, type Day } from "./dailyChart";
import { day } from "../shared/format";
import { t } from "../shared/i18n";

const WIDTH = 600;
const HEIGHT = 160;

/** Orders and refusals per day as bars (SVG, no library): each day's pair; the span and the scale's top in its caption. */
export function DailyChart({ days }: { days: readonly Day[] }) {
  const { max, bars } = dailyBars(days, WIDTH, HEIGHT);
  const summary = dailySummary(days);
  return (
    <figure className="daily-chart">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={summary}>
        <line className="axis" x1={0} x2={WIDTH} y1={HEIGHT - AXIS} y2={HEIGHT - AXIS} />
        {bars.map((bar) => (
          <g key={bar.day}>
            <title>{t("totals.bar", { day: day(bar.day), orders: bar.orders, refusals: bar.refusals })}</title>
            <rect className="orders" x={bar.x} y={bar.ordersTop} width={bar.width} height={HEIGHT - AXIS - bar.ordersTop} />
            <rect className="refusals" x={bar.x + bar.width} y={bar.refusalsTop} width={bar.width} height={HEIGHT - AXIS - bar.refusalsTop} />
          </g>
        ))}
      </svg>
      <figcaption>
        <span className="key orders">{t("totals.orders")}</span> <span className="key refusals">{t("totals.refusals")}</span>{" "}
        <span className="muted">{t("totals.chartCaption", { from: day(bars[0]?.day), to: day(bars.at(-1)?.day), max })}</span>
      </figcaption>
    </figure>
  );
}
