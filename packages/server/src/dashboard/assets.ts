import { dashboardAssets, type DashboardAsset } from "@tally-analytics/dashboard";
import { HttpError, MESSAGES } from "../http/errors.js";
import { staticTextResponse } from "../http/static-text.js";

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

/** The parts the dashboard imports when they open (`live-view-Q2ZT4V7A.js`): named by their content, so never changed. */
const CONTENT_NAMED = /-[A-Z0-9]{8}\.js$/;

/** GET {base}/assets/{name}: the built front end, gzip or brotli as built, with an ETag so revalidation costs a 304. */
export function assetResponse(request: Request, url: URL, name: string): Response {
  const file = asset(name);
  const versioned = url.searchParams.get("v") === file.version || CONTENT_NAMED.test(name);
  return staticTextResponse(request, file, {
    "cache-control": versioned ? IMMUTABLE : SHORT,
    "x-content-type-options": "nosniff",
  });
}
