import { revenueBody } from "@tally-analytics/core/internal";
import * as z from "zod";

/** The tracker's short keys. Lengths are checked again, with the hit's own rules, in core. */
export const hitBody = z
  .object({
    u: z
      .string({ error: "u (the page URL) is required." })
      .meta({ description: "The page's URL; its host names the website.", example: "https://example.com/pricing?utm_campaign=launch" }),
    r: z.string().nullish().meta({ description: "The referrer.", example: "https://news.ycombinator.com/" }),
    s: z.string().nullish().meta({ description: "Screen size, `WxH`.", example: "1920x1080" }),
    l: z.string().nullish().meta({ description: "Language.", example: "en-US" }),
    n: z.string().nullish().meta({ description: "Event name; absent (or `pageview`) for a pageview.", example: "Signup" }),
    p: z
      .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
      .nullish()
      .meta({ description: "The event's or the pageview's properties.", example: { plan: "pro" } }),
    $: revenueBody,
    h: z
      .union([z.literal(0), z.literal(1), z.boolean()])
      .nullish()
      .meta({ description: "Hash routing: the URL's fragment is part of the page." }),
    e: z.number().nullish().meta({
      description:
        "An engagement signal, not a hit: milliseconds the page was visible and focused since the last signal (sent when it is hidden or left; at most 6 hours count). Never with `n`.",
      example: 12500,
    }),
    d: z.number().nullish().meta({
      description: "With an engagement signal (`e`): the deepest percentage of the page seen, an integer 0–100.",
      example: 75,
    }),
    w: z
      .object({
        lcp: z.number().nullish(),
        inp: z.number().nullish(),
        cls: z.number().nullish(),
        fcp: z.number().nullish(),
        ttfb: z.number().nullish(),
      })
      .strict()
      .nullish()
      .meta({
        description:
          "With an engagement signal (`e`): the pageview's web vitals, each optional: `lcp`, `inp`, `fcp`, `ttfb` in milliseconds (at most 600000), `cls` a score (at most 10).",
        example: { lcp: 1800, inp: 120, cls: 0.05, fcp: 900, ttfb: 300 },
      }),
    v: z.string().max(64).nullish().meta({
      description:
        "A pageview's server mark, read from the page's `Server-Timing: tally;desc=…`: the app's server counted this view already (the middleware), and this pageview only adds screen size and language to it.",
    }),
  })
  .meta({ id: "Hit" });

export type HitBody = z.infer<typeof hitBody>;
