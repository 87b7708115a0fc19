import { trackerEncoded, trackerEtag, trackerScript } from "@tally-analytics/tracker";
import { staticTextResponse, type StaticText } from "../http/static-text.js";

/** The script URL is not versioned: a day of freshness, a week of serving stale while revalidating. */
const CACHE_CONTROL = "public, max-age=86400, stale-while-revalidate=604800";

const TRACKER: StaticText = {
  body: trackerScript,
  contentType: "text/javascript; charset=utf-8",
  version: trackerEtag.slice(1, -1),
  encoded: trackerEncoded,
};

/** GET /script.js: the tracker, gzip or brotli as built, with an ETag so revalidation costs a 304. */
export async function trackerScriptResponse(request: Request): Promise<Response> {
  return staticTextResponse(request, TRACKER, { "cache-control": CACHE_CONTROL, "access-control-allow-origin": "*" });
}
