import type { Tally } from "@tally-analytics/core";

/**
 * Where links in e-mails point: the configured public URL, else the mount as this request
 * reached it. Only routes a signed-in member calls may fall back on the request (its Host
 * is theirs to choose); password resets need the configured URL (see sign-in-routes.ts).
 */
export function linkBase(tally: Tally, url: URL, basePath: string): string {
  const configured = tally.options.publicUrl;
  if (configured) return configured.replace(/\/+$/, "");
  return `${url.origin}${basePath}`;
}
