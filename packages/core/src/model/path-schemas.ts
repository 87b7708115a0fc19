import * as z from "zod";
import { dayRangeSchema } from "./stats-schemas.js";

const previous = z.number().optional().meta({ description: "With `compare`: the visitors in the comparison range." });

/** One step of a funnel over a range (docs/statistics.md, "Funnels"). */
export const funnelRowSchema = z
  .object({
    step: z.int().positive().meta({ description: "The step's number, from 1.", example: 2 }),
    label: z.string().meta({ description: "The step as defined: `page:<pattern>` or `event:<name>`.", example: "page:/signup*" }),
    visitors: z.number().meta({ description: "Visitors with a visit that did steps 1…n in order (summed over days).", example: 42 }),
    conversion_rate: z.number().meta({ description: "`visitors` in percent of the first step's, one decimal.", example: 35.2 }),
    drop_off: z.number().meta({ description: "The previous step's visitors minus this one's; 0 for the first.", example: 77 }),
    previous,
  })
  .meta({ id: "FunnelRow" });

export const funnelResultSchema = z
  .object({
    data: z.array(funnelRowSchema),
    funnel: z.object({ id: z.int().positive(), name: z.string() }),
    comparison: dayRangeSchema.optional().meta({ description: "With `compare`: the range compared with." }),
  })
  .meta({ id: "FunnelResult" });

/** A place in the flow: the start (`step` 0) or the value at a number of steps from it. */
export const journeyNodeSchema = z
  .object({
    step: z.int().nonnegative().meta({ description: "Steps from the start; 0 is the start itself.", example: 1 }),
    value: z.string().meta({ description: "`page:<page>` or `event:<name>` (the start: as asked).", example: "page:/signup" }),
    visitors: z.number().meta({ description: "Visitors with a visit at this value at this step (summed over days).", example: 18 }),
    previous,
  })
  .meta({ id: "JourneyNode" });

/** Visitors who went from one node to the next. */
export const journeyLinkSchema = z
  .object({
    step: z.int().positive().meta({ description: "The step of `to`; `from` is at the step before.", example: 1 }),
    from: z.string().meta({ example: "page:/pricing" }),
    to: z.string().meta({ example: "page:/signup" }),
    visitors: z.number().meta({ example: 12 }),
  })
  .meta({ id: "JourneyLink" });

export const journeyResultSchema = z
  .object({
    data: z
      .array(journeyNodeSchema)
      .meta({ description: "The start, then the most frequent values of each step (at most 10), by visitors." }),
    links: z.array(journeyLinkSchema).meta({ description: "Visitors from each node to each node of the next step." }),
    comparison: dayRangeSchema.optional().meta({ description: "With `compare`: the range compared with." }),
  })
  .meta({ id: "JourneyResult" });

export type FunnelRow = z.infer<typeof funnelRowSchema>;
export type FunnelResult = z.infer<typeof funnelResultSchema>;
export type JourneyNode = z.infer<typeof journeyNodeSchema>;
export type JourneyLink = z.infer<typeof journeyLinkSchema>;
export type JourneyResult = z.infer<typeof journeyResultSchema>;
