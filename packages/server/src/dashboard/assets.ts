import { dashboardAssets, type DashboardAsset } from "@tally-analytics/dashboard";
import { HttpError, MESSAGES } from "../errors.js";

/** Versioned URLs (`?v=` matching the content) never change: cache them for a year. */
const IMMUTABLE = "public, max-age=31536000, immutable";
/** An unversioned URL may be old: revalidate after a few minutes. */
const SHORT = "public, max-age=300";

function asset(name: string): DashboardAsset {
  if (!Object.hasOwn(dashboardAssets, name)) throw new HttpError(404, MESSAGES.notFound);
  return dashboardAssets[name as keyof typeof dashboardAssets];
}

/** `assets/dashboard.js?v=…`, relative to the page that references it. */
export function assetPath(name: keyof typeof dashboardAssets): string {
  return `assets/${name}?v=${dashboardAssets[name].version}`;
}

/** GET {base}/assets/{name}: the built front end, with an ETag so revalidation costs a 304. */
export function assetResponse(request: Request, url: URL, name: string): Response {
  const { body, contentType, version } = asset(name);
  const etag = `"${version}"`;
  const headers = {
    etag,
    "cache-control": url.searchParams.get("v") === version ? IMMUTABLE : SHORT,
    "x-content-type-options": "nosniff",
  };
  const tags = (request.headers.get("if-none-match") ?? "").split(",").map((tag) => tag.trim().replace(/^W\//, ""));
  if (tags.includes(etag) || tags.includes("*")) return new Response(null, { status: 304, headers });
  return new Response(request.method === "HEAD" ? null : body, { status: 200, headers: { ...headers, "content-type": contentType } });
}
