import * as z from "zod";
import { ValidationError } from "@tally-analytics/core";
import { JSON_CONTENT_TYPE, NOSNIFF } from "../http/json-response.js";
import type { HitFields } from "./collect.js";
import type { ForeignTracker } from "./foreign-hits.js";

// GoatCounter's pixel and count.js endpoint (`GET /count?p=…`). GoatCounter finds the site by
// its own host name; here the website is the host of the page showing the pixel: the
// request's Referer (browsers send at least its origin).

const text = z.string().optional();

export const goatCounterQuery = z
  .object({
    p: z
      .string({ error: "p (the page path or event name) is required." })
      .min(1, "p (the page path or event name) is required.")
      .meta({ description: "The page's path, or the event's name with `e`.", example: "/pricing" }),
    r: text.meta({ description: "The referrer." }),
    t: text.meta({ description: "The page's title; accepted, not kept." }),
    e: text.meta({ description: "An event (`true`, `1`, `on`): `p` is its name, counted on the page of the Referer." }),
    s: text.meta({ description: "Screen size, `width,height,scale`.", example: "1920,1080,1" }),
    q: text.meta({ description: "The page's query string (`?utm_campaign=…`), for campaigns.", example: "?utm_source=news" }),
    b: text.meta({ description: "count.js's bot flag: a number other than 0 drops the hit as a bot." }),
    rnd: text.meta({ description: "Ignored (a cache buster)." }),
  })
  .meta({ id: "GoatCounterCount" });

type GoatCounterCount = z.infer<typeof goatCounterQuery> & { page: string | null };

const TRUE = new Set(["true", "1", "on"]);

/** The pixel's parameters, with the page that shows it (the Referer). */
export const readCount = async (request: Request, url: URL) => ({
  ...Object.fromEntries(url.searchParams),
  page: request.headers.get("referer"),
});

/** GoatCounter's hit as Tally's: the page is `p` (with `q`) on the Referer's host; an event is `p` on the Referer's page. */
export function goatCounterHits(count: GoatCounterCount): HitFields[] {
  let page: URL;
  try {
    page = new URL(count.page ?? "");
  } catch {
    throw ValidationError.field("referer", "The pixel's page is unknown: the request has no Referer header.");
  }
  const event = count.e !== undefined && TRUE.has(count.e);
  const url = event ? page : new URL(count.p + (count.q ?? ""), page.origin);
  const [width, height] = (count.s ?? "").split(",");
  return [{ url: url.href, referrer: count.r, screen: width && height ? `${width}x${height}` : null, event: event ? count.p : null }];
}

/** A transparent 1×1 GIF. */
const GIF = Uint8Array.from(atob("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7"), (c) => c.charCodeAt(0));

export const goatCounterTracker: ForeignTracker<GoatCounterCount> = {
  read: readCount,
  schema: goatCounterQuery.extend({ page: z.string().nullable() }),
  hits: goatCounterHits,
  bot: (count) => count.b !== undefined && count.b !== "0",
  counted: (dropped) =>
    new Response(GIF, {
      status: 200,
      headers: { "content-type": "image/gif", "cache-control": "no-store", ...(dropped === null ? {} : { "x-tally-dropped": dropped }) },
    }),
  // Tally's error shape: GoatCounter's pixel has none of its own (an <img> shows nothing).
  failed: (status, errors, headers) =>
    new Response(JSON.stringify({ message: Object.values(errors).flat().join(" "), status }), {
      status,
      headers: { ...headers, ...NOSNIFF, "content-type": JSON_CONTENT_TYPE, "cache-control": "no-store" },
    }),
};
