import * as z from "zod";
import { choice, validate } from "../shared/validation.js";
import { MAX_JOURNEY_DEPTH, FUNNEL_LIMITS, type PathStep } from "../model/path-steps.js";
import { checkRange, isParsed, rangeFields, withConditions } from "./stats-query.js";

/** The funnel call's parameters: which funnel, a range, filters, a comparison. */
export interface FunnelQueryInput {
  funnel?: unknown;
  from?: unknown;
  to?: unknown;
  filter?: unknown;
  compare?: unknown;
}

/** The journey call's parameters. */
export interface JourneyQueryInput {
  from_page?: unknown;
  from_event?: unknown;
  direction?: unknown;
  depth?: unknown;
  from?: unknown;
  to?: unknown;
  filter?: unknown;
  compare?: unknown;
}

/** In-process callers may pass numbers where a query string has text. */
const asText = (value: unknown) => (typeof value === "number" ? String(value) : value);

const FUNNEL_MESSAGE = "The funnel must be the id of one of the website's funnels.";

export const funnelQuerySchema = z
  .object({
    funnel: z
      .preprocess(
        asText,
        z
          .string({ error: "The funnel field is required." })
          .regex(/^\d{1,15}$/, FUNNEL_MESSAGE)
          .transform(Number),
      )
      .meta({ description: "The funnel's id (`GET /api/v1/websites/{id}/funnels`).", example: "1" }),
    ...rangeFields,
  })
  .superRefine(checkRange)
  .transform(withConditions);

const startField = (what: string, example: string) =>
  z
    .string({ error: `The from ${what} must be a string.` })
    .min(1, `The from ${what} may not be empty.`)
    .max(FUNNEL_LIMITS.stepLength, `The from ${what} may not be longer than ${FUNNEL_LIMITS.stepLength} characters.`)
    .optional()
    .meta({ example });

const DEPTH_MESSAGE = `The depth must be an integer from 1 to ${MAX_JOURNEY_DEPTH}.`;

export const journeyQuerySchema = z
  .object({
    from_page: startField("page", "/pricing").meta({
      description: "Start at the first pageview of a page matching this pattern (`*` stands for any characters, case-sensitive).",
    }),
    from_event: startField("event", "Signup").meta({ description: "Start at the first event of this name (instead of `from_page`)." }),
    direction: choice("direction", ["next", "previous"])
      .default("next")
      .meta({ description: "`next`: the steps after the start; `previous`: the steps before it, nearest first.", default: "next" }),
    depth: z
      .preprocess(
        asText,
        z
          .string({ error: DEPTH_MESSAGE })
          .regex(new RegExp(`^[1-${MAX_JOURNEY_DEPTH}]$`), DEPTH_MESSAGE)
          .transform(Number)
          .default(3),
      )
      .meta({ description: `How many steps from the start, 1 to ${MAX_JOURNEY_DEPTH}.`, default: "3" }),
    ...rangeFields,
  })
  .superRefine((query, context) => {
    checkRange(query, context);
    if ((query.from_page === undefined) === (query.from_event === undefined)) {
      context.addIssue({ code: "custom", path: ["from_page"], message: "Exactly one of from_page and from_event is required." });
    }
  })
  .transform((query, context) => {
    const start: PathStep =
      query.from_page === undefined ? { kind: "event", name: query.from_event ?? "" } : { kind: "page", pattern: query.from_page };
    return Object.assign(withConditions(query, context), { start });
  });

export type FunnelQuery = z.output<typeof funnelQuerySchema>;
export type JourneyQuery = z.output<typeof journeyQuerySchema>;

export function parseFunnelQuery(input: FunnelQueryInput | FunnelQuery): FunnelQuery {
  return isParsed(input) ? (input as FunnelQuery) : validate(funnelQuerySchema, input);
}

export function parseJourneyQuery(input: JourneyQueryInput | JourneyQuery): JourneyQuery {
  return isParsed(input) ? (input as JourneyQuery) : validate(journeyQuerySchema, input);
}
