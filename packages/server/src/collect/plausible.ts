import { ValidationError } from "@tally-analytics/core";
import { revenueBody } from "@tally-analytics/core/internal";
import * as z from "zod";
import { JSON_CONTENT_TYPE, NOSNIFF } from "../http/json-response.js";
import { CORS_HEADERS, type HitFields } from "./collect.js";
import type { Dropped, ForeignTracker } from "./foreign-hits.js";

// Plausible's Events API (`POST /api/event`): what its script, its npm package and its
// server-side clients send. Short keys are the script's, long ones the documented API's.

const text = z.string().nullish();
const props = z.union([z.record(z.string(), z.unknown()), z.string()]).nullish();
const flag = z.union([z.literal(0), z.literal(1), z.boolean()]).nullish();

export const plausibleEventBody = z
  .object({
    n: text.meta({ description: "Event name: `pageview`, `engagement` (time on page), or a custom event.", example: "Signup" }),
    name: text.meta({ description: "Same as `n`." }),
    u: text.meta({ description: "The page's URL.", example: "https://example.com/pricing" }),
    url: text.meta({ description: "Same as `u`." }),
    d: text.meta({
      description: "The website's domain in Tally; several separated by commas. Absent: the host of `u`.",
      example: "example.com",
    }),
    domain: text.meta({ description: "Same as `d`." }),
    r: text.meta({ description: "The referrer." }),
    referrer: text.meta({ description: "Same as `r`." }),
    p: props.meta({
      description: "Custom properties: an object (or its JSON text); values that are lists or objects are left out.",
      example: { plan: "pro" },
    }),
    props: props.meta({ description: "Same as `p`." }),
    h: flag.meta({ description: "Hash routing: the fragment is part of the page." }),
    hash_mode: flag.meta({ description: "Same as `h`." }),
    i: z.boolean().nullish().meta({ description: "Interactive; accepted, and counted like any event (docs/moving.md)." }),
    interactive: z.boolean().nullish().meta({ description: "Same as `i`." }),
    e: z.number().nullish().meta({ description: "With `n: engagement`: milliseconds engaged since the last signal." }),
    sd: z.number().nullish().meta({
      description: "With `n: engagement`: the deepest percentage of the page seen; kept as Tally's scroll depth (`d`), within 0–100.",
    }),
    $: revenueBody,
    revenue: revenueBody.meta({ description: "Same as `$`." }),
    s: text.meta({ description: "Tally's addition (its build of the script sends it): screen size, `WxH`." }),
    l: text.meta({ description: "Tally's addition: the browser's language." }),
  })
  .meta({
    id: "PlausibleEvent",
    description: "The script version (`v`) is accepted and ignored.",
  });

type PlausibleEvent = z.infer<typeof plausibleEventBody>;

/** Property values Tally keeps: strings, numbers and booleans (Plausible too drops lists and objects). */
function propsOf(value: PlausibleEvent["p"]): Record<string, string | number | boolean> | undefined {
  let object: unknown = value;
  if (typeof value === "string") {
    try {
      object = JSON.parse(value);
    } catch {
      throw ValidationError.field("props", "The props are not a JSON object.");
    }
  }
  if (object === null || object === undefined) return undefined;
  if (typeof object !== "object" || Array.isArray(object)) throw ValidationError.field("props", "The props must be an object.");
  const kept: Record<string, string | number | boolean> = {};
  for (const [key, entry] of Object.entries(object)) {
    if (typeof entry === "string" || typeof entry === "number" || typeof entry === "boolean") kept[key] = entry;
  }
  return kept;
}

/** Plausible's event as Tally's hits: one per domain it names. */
export function plausibleHits(event: PlausibleEvent): HitFields[] {
  const name = event.n ?? event.name;
  const url = event.u ?? event.url;
  if (!name) throw ValidationError.field("name", "can't be blank");
  if (!url) throw ValidationError.field("url", "can't be blank");
  const hit: HitFields = {
    url,
    referrer: event.r ?? event.referrer,
    hash: Boolean(event.h ?? event.hash_mode),
    screen: event.s,
    language: event.l,
  };
  if (name === "engagement") {
    hit.engagedMs = event.e ?? 0;
    // Plausible's server takes any number here; Tally keeps whole percents from 0 to 100 (rounded, held to the bounds).
    if (typeof event.sd === "number" && Number.isFinite(event.sd)) hit.scrollDepth = Math.min(100, Math.max(0, Math.round(event.sd)));
  } else {
    // A pageview's properties too: Plausible's custom properties for pageviews.
    hit.props = propsOf(event.p ?? event.props);
    if (name !== "pageview") hit.event = name;
    hit.revenue = event.$ ?? event.revenue;
  }
  const domains = (event.d ?? event.domain ?? "")
    .split(",")
    .map((domain) => domain.trim())
    .filter((domain) => domain !== "");
  return domains.length === 0 ? [hit] : domains.map((website) => ({ ...hit, website }));
}

/** Plausible's answers: `202 ok` as text, errors as `{"errors": {field: [message]}}`. */
export const plausibleTracker: ForeignTracker<PlausibleEvent> = {
  schema: plausibleEventBody,
  hits: plausibleHits,
  counted: (dropped: Dropped) =>
    new Response("ok", {
      status: 202,
      headers: {
        ...CORS_HEADERS,
        "content-type": "text/plain; charset=utf-8",
        ...(dropped === null ? {} : { "x-plausible-dropped": "1", "x-tally-dropped": dropped }),
      },
    }),
  failed: (status, errors, headers) =>
    new Response(JSON.stringify({ errors }), {
      status,
      headers: { ...CORS_HEADERS, ...headers, ...NOSNIFF, "content-type": JSON_CONTENT_TYPE },
    }),
};
