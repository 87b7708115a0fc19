import {
  extensionsTracker,
  goatCounterTracker,
  plausibleTaggedTracker,
  plausibleTracker,
  trackerEncoded,
  trackerEtag,
  trackerScript,
  umamiTracker,
  type ServedTracker,
} from "@tally-analytics/tracker";
import { staticTextResponse, type StaticText } from "../http/static-text.js";

/** The script URL is not versioned: a day of freshness, a week of serving stale while revalidating. */
const CACHE_CONTROL = "public, max-age=86400, stale-while-revalidate=604800";

const TRACKER: StaticText = {
  body: trackerScript,
  contentType: "text/javascript; charset=utf-8",
  version: trackerEtag.slice(1, -1),
  encoded: trackerEncoded,
};

const served = ({ script, etag, encoded }: ServedTracker): StaticText => ({
  body: script,
  contentType: TRACKER.contentType,
  version: etag.slice(1, -1),
  encoded,
});

/** The build with the extensions, at /script.ext.js (docs/tracker.md, "Extensions"). */
export const EXTENSIONS_TRACKER = served(extensionsTracker);

/** The builds for other tools' snippets (docs/moving.md, "Coming from Plausible, Umami or GoatCounter"). */
export const FOREIGN_TRACKERS = {
  plausible: served(plausibleTracker),
  plausibleTagged: served(plausibleTaggedTracker),
  umami: served(umamiTracker),
  goatcounter: served(goatCounterTracker),
} as const;

/** GET /script.js (or another build): the tracker, gzip or brotli as built, with an ETag so revalidation costs a 304. */
export async function trackerScriptResponse(request: Request, text: StaticText = TRACKER): Promise<Response> {
  return staticTextResponse(request, text, { "cache-control": CACHE_CONTROL, "access-control-allow-origin": "*" });
}
