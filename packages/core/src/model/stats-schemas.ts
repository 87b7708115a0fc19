import * as z from "zod";
import { goalRevenueSchema } from "./revenue-schemas.js";

const day = z.string().meta({ format: "date", example: "2026-11-01" });

/** An inclusive range of local days, `Y-m-d`. */
export const dayRangeSchema = z.object({ from: day, to: day }).meta({ id: "DayRange" });

/** One web vital's figures on a page: its p75 and the shares by the published thresholds. */
const vitalFiguresSchema = z
  .object({
    count: z.number().meta({ description: "Pageviews that measured it." }),
    p75: z.number().meta({ description: "The 75th percentile (nearest rank): milliseconds, or a score for CLS." }),
    good: z.number().meta({ description: "Percent of the measurements that are good." }),
    needs_improvement: z.number().meta({ description: "Percent that need improvement." }),
    poor: z.number().meta({ description: "Percent that are poor." }),
  })
  .nullable()
  .meta({ id: "VitalFigures" });

/** One row of a statistic. */
export const statRowSchema = z
  .object({
    value: z.string().meta({
      description: "The day (`Y-m-d`), hour (`00`…`23`), page, referrer, country (`US:United States`)… that is counted.",
      example: "/pricing",
    }),
    count: z.number().meta({
      description:
        "Visitors, visits, pageviews or events, as the statistic counts (docs/statistics.md); a ratio for `bounce_rate`, `visit_duration`, `views_per_visit`.",
      example: 42,
    }),
    previous: z.number().optional().meta({ description: "With `compare`: the count in the comparison range." }),
    events: z.number().optional().meta({ description: "`goals` only: how many times the event fired." }),
    conversion_rate: z.number().optional().meta({ description: "`goals` only: visitors who fired it, in percent of all visitors." }),
    revenue: z.array(goalRevenueSchema).optional().meta({
      description:
        "`goals` only, for a goal whose events carried revenue in the range: its revenue per currency, each apart (no exchange rates; docs/revenue.md).",
    }),
    average: z.number().optional().meta({ description: "`scroll_depth` only: the average of the visits' deepest scroll, in percent." }),
    median: z.number().optional().meta({ description: "`scroll_depth` only: the median of the visits' deepest scroll, in percent." }),
    seconds: z
      .number()
      .optional()
      .meta({ description: "`time_on_page` only: the mean engaged seconds of the visits that engaged on the page." }),
    previous_figure: z
      .number()
      .optional()
      .meta({ description: "`scroll_depth` and `time_on_page` with `compare`: `average` or `seconds` in the comparison range." }),
    vitals: z
      .object({
        lcp: vitalFiguresSchema,
        inp: vitalFiguresSchema,
        cls: vitalFiguresSchema,
        fcp: vitalFiguresSchema,
        ttfb: vitalFiguresSchema,
      })
      .optional()
      .meta({ description: "`vitals` only: each vital's figures (null: not measured on the page)." }),
  })
  .meta({ id: "StatRow" });

/** Visitors, visits, pageviews and the visit metrics of a range. */
export const totalFiguresSchema = z
  .object({
    visitors: z.number(),
    visits: z.number(),
    pageviews: z.number(),
    views_per_visit: z.number(),
    bounce_rate: z.number().meta({ description: "Percent of visits with one pageview and no event." }),
    visit_duration: z.number().meta({ description: "Mean seconds per visit." }),
  })
  .meta({ id: "TotalFigures" });

export const totalsSchema = z
  .object({
    data: totalFiguresSchema,
    previous: totalFiguresSchema.optional().meta({ description: "With `compare`: the same figures over the comparison range." }),
    comparison: dayRangeSchema.optional(),
  })
  .meta({ id: "Totals" });

/** "Right now": visitors with a hit in the last five minutes. */
export const realtimeSchema = z
  .object({ visitors: z.int().nonnegative().meta({ description: "Visitors whose last hit is at most five minutes old.", example: 3 }) })
  .meta({ id: "Realtime" });

export type DayRange = z.infer<typeof dayRangeSchema>;
export type StatRow = z.infer<typeof statRowSchema>;
export type TotalFigures = z.infer<typeof totalFiguresSchema>;

/** One hour of one day's figures, as the totals call gives a range's; `events` are the custom events. */
export interface HourFigures extends TotalFigures {
  /** `Y-m-d HH`, local. */
  hour: string;
  events: number;
}
export type Totals = z.infer<typeof totalsSchema>;

/** One value's figures in a breakdown by a visit column (the Stats API v2's rows). */
export interface ValueTotals {
  value: string;
  data: TotalFigures;
}
export type Realtime = z.infer<typeof realtimeSchema>;
