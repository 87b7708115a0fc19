// The schemas of revenue as requests carry it and answers report it. Apart from revenue.ts,
// whose checks and sums the writer thread loads without zod.
import * as z from "zod";

/** A hit body's revenue field (checked further by checkRevenue). */
export const revenueBody = z
  .object({ amount: z.union([z.number(), z.string()]), currency: z.string() })
  .nullish()
  .meta({
    description: "An event's revenue: its amount and ISO 4217 currency (docs/revenue.md).",
    example: { amount: 29.9, currency: "EUR" },
  });

/** A goal's revenue in one currency, as the `goals` statistic reports it (docs/revenue.md). */
export const goalRevenueSchema = z
  .object({
    currency: z.string().meta({ description: "ISO 4217 code.", example: "EUR" }),
    total_revenue: z.number().meta({ description: "The sum of the amounts, in the currency's unit.", example: 59.98 }),
    average_revenue: z
      .number()
      .meta({ description: "The sum divided by the events that carried revenue, to four decimals.", example: 29.99 }),
    revenue_per_visitor: z.number().meta({
      description: "The sum divided by all visitors of the range under the filters (the conversion rate's divisor), to four decimals.",
    }),
    events: z.number().meta({ description: "Events of the goal that carried revenue in this currency." }),
  })
  .meta({ id: "GoalRevenue" });
export type GoalRevenue = z.infer<typeof goalRevenueSchema>;
