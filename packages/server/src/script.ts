import { trackerEtag, trackerScript } from "@tally-analytics/tracker";

/** The script URL is not versioned: a day of freshness, a week of serving stale while revalidating. */
const CACHE_CONTROL = "public, max-age=86400, stale-while-revalidate=604800";

/** GET /script.js: the tracker, with an ETag so revalidation costs a 304. */
export async function trackerScriptResponse(request: Request): Promise<Response> {
  const headers = { etag: trackerEtag, "cache-control": CACHE_CONTROL, "access-control-allow-origin": "*" };
  const tags = (request.headers.get("if-none-match") ?? "").split(",").map((tag) => tag.trim().replace(/^W\//, ""));
  if (tags.includes(trackerEtag) || tags.includes("*")) return new Response(null, { status: 304, headers });
  const body = request.method === "HEAD" ? null : trackerScript;
  return new Response(body, { status: 200, headers: { ...headers, "content-type": "text/javascript; charset=utf-8" } });
}
